"""Parity: ``ConstantLR``, ``PolynomialLR``, ``CosineAnnealingWarmRestarts``,
``ReduceLROnPlateau``, ``SequentialLR`` and ``ChainedScheduler`` — minigrad vs PyTorch.

The training loop of ``test_lr_scheduler.py`` (``get_last_lr()`` bit for bit, every param
group, the parameters, the ``state_dict`` and the warnings), fractional epochs of the warm
restarts, plateau detection over a given metric sequence, the composites (nested too), the
deprecated closed form, ``state_dict``/``load_state_dict`` round trips and the constructors'
errors.
"""

import warnings

import pytest

from minigrad.parity import assert_parity

from .test_lr_scheduler import _exact, _groups, _state, schedule_trace
from .test_optim import loss_fn, make
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

SCHEDULERS = {
    "ConstantLR": ("SGD", {"lr": 0.1}, "ConstantLR", {"factor": 0.25, "total_iters": 4}),
    "ConstantLR_default": ("Adam", {"lr": 0.03}, "ConstantLR", {}),
    "ConstantLR_09": ("SGD", {"lr": 0.1}, "ConstantLR", {"factor": 0.9, "total_iters": 2}),
    "PolynomialLR": ("SGD", {"lr": 0.1}, "PolynomialLR", {"total_iters": 6, "power": 2.0}),
    "PolynomialLR_default": ("Adam", {"lr": 0.03}, "PolynomialLR", {}),
    "CAWR": ("SGD", {"lr": 0.1}, "CosineAnnealingWarmRestarts", {"T_0": 3}),
    "CAWR_mult": ("SGD", {"lr": 0.1, "momentum": 0.9}, "CosineAnnealingWarmRestarts",
                  {"T_0": 2, "T_mult": 2, "eta_min": 0.01}),
    # the optimizers of test_optim_extra.py under schedulers (OneCycleLR cycles beta1)
    "OneCycleLR_nadam": ("NAdam", {"lr": 0.01}, "OneCycleLR", {"max_lr": 0.05,
                                                               "total_steps": 12}),
    "OneCycleLR_adamax": ("Adamax", {"lr": 0.01}, "OneCycleLR", {"max_lr": 0.05,
                                                                 "total_steps": 12}),
    "CAWR_radam": ("RAdam", {"lr": 0.01}, "CosineAnnealingWarmRestarts", {"T_0": 4}),
    "PolynomialLR_adadelta": ("Adadelta", {"lr": 0.5}, "PolynomialLR", {"total_iters": 8}),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedule(device, name):
    assert_parity(schedule_trace, *SCHEDULERS[name], device=device, epochs=12)


def _lrs_with_warnings(lib, build, drive):
    """``build(lib, opt)`` -> scheduler; ``drive(opt, sched, record)`` steps it; returns the
    recorded lrs, the warnings and the final ``state_dict``."""
    model, x, y = make(lib, "cpu")
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    lrs = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        sched = build(lib, opt)
        lrs.append(_exact(sched.get_last_lr()))

        def record():
            lrs.append(_exact(sched.get_last_lr()))

        drive(lib, opt, sched, record, lambda: loss_fn(model, x, y).backward())
    return {"lrs": lrs, "warnings": [str(m.message) for m in w], "groups": _groups(opt),
            "state": _exact(_state(sched))}


def _train(lib, opt, sched, record, backward, epochs=10):
    for _ in range(epochs):
        opt.zero_grad()
        backward()
        opt.step()
        sched.step()
        record()


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_fractional_epochs(T_mult):
    """``step(epoch + i / iters)`` inside each epoch (PyTorch's documented use), then jumps
    to given epochs (past restarts, back to the first cycle): no deprecation warning."""
    def drive(lib, opt, sched, record, backward):
        iters = 4
        for epoch in range(6):
            for i in range(iters):
                opt.zero_grad()
                backward()
                opt.step()
                sched.step(epoch + i / iters)
                record()
                record.__dict__.setdefault("T", []).append((sched.T_cur, sched.T_i,
                                                            sched.last_epoch))
        for epoch in (17, 2, 0, 9.5, 30):
            sched.step(epoch)
            record()
        sched.step()
        record()

    def scenario(lib):
        return _lrs_with_warnings(lib, lambda lib, opt: lib.optim.lr_scheduler
                                  .CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=T_mult,
                                                               eta_min=0.001), drive)

    assert_parity(scenario)


PLATEAU = {
    "min_rel": dict(patience=1),
    "min_abs_cooldown": dict(threshold_mode="abs", threshold=0.05, patience=0, cooldown=2,
                             factor=0.5),
    "max_rel": dict(mode="max", patience=2, factor=0.3),
    "max_abs_min_lr": dict(mode="max", threshold_mode="abs", threshold=0.01, patience=0,
                           min_lr=0.02, factor=0.5),
    "eps": dict(patience=0, factor=0.9, eps=0.02),
}
METRICS = [1.0, 0.9, 0.95, 0.9, 0.91, 0.92, 0.5, 0.49995, 0.6, 0.7, 0.8, 0.3, 0.3, 0.3, 2.0,
           2.5, 2.49, 2.0]


@pytest.mark.parametrize("case", sorted(PLATEAU))
def test_reduce_lr_on_plateau(case):
    """Two param groups (the second with its own lr); after each ``step(metric)``: both lrs,
    ``best``, ``num_bad_epochs``, ``cooldown_counter``, ``last_epoch``; then the state_dict."""
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD([{"params": model.fc1.parameters()},
                             {"params": model.fc2.parameters(), "lr": 0.03}], lr=0.1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[case])
        out = [("init", _exact(sched.get_last_lr()), sched.last_epoch)]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for m in METRICS:
                opt.step()
                sched.step(lib.tensor(m) if m == 0.3 else m)  # a 0-d tensor metric too
                out.append((_exact(sched.get_last_lr()), repr(sched.best),
                            sched.num_bad_epochs, sched.cooldown_counter, sched.last_epoch,
                            sched.in_cooldown))
        return {"steps": out, "warnings": [str(x.message) for x in w],
                "state": _exact(_state(sched)), "groups": _groups(opt)}

    assert_parity(scenario)


def test_reduce_lr_on_plateau_min_lrs_epoch_and_errors():
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        s = lib.optim.lr_scheduler
        opt = lib.optim.SGD([{"params": model.fc1.parameters()},
                             {"params": model.fc2.parameters()}], lr=0.1)
        sched = s.ReduceLROnPlateau(opt, patience=0, min_lr=[0.05, 0.001])
        lrs = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for i, m in enumerate([3.0, 3.0, 3.0, 3.0]):
                sched.step(m, epoch=10 + i) if i == 2 else sched.step(m)
                lrs.append((sched.get_last_lr(), sched.last_epoch))
        opt.add_param_group({"params": [model.unused]})
        grown = err(lambda: sched.step(5.0))
        opt2 = lib.optim.SGD(model.parameters(), lr=0.1)
        default = s.ReduceLROnPlateau(opt2, patience=0, min_lr=0.01)
        opt2.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 0.5})
        default.step(1.0)
        default.step(1.0)
        return {"lrs": lrs, "warnings": [str(x.message) for x in w], "grown": grown,
                "default": (default.get_last_lr(), default.min_lrs),
                "errors": [err(lambda: s.ReduceLROnPlateau(opt, factor=1.0)),
                           err(lambda: s.ReduceLROnPlateau(opt, mode="avg")),
                           err(lambda: s.ReduceLROnPlateau(opt, threshold_mode="pct")),
                           err(lambda: s.ReduceLROnPlateau(opt, min_lr=[0.1])),
                           err(lambda: s.ReduceLROnPlateau("opt")),
                           err(lambda: s.ReduceLROnPlateau(opt, verbose=True))]}

    assert_parity(scenario)


def _sequential(lib, opt):
    s = lib.optim.lr_scheduler
    return s.SequentialLR(opt, [s.ConstantLR(opt, factor=0.5, total_iters=2),
                                s.ExponentialLR(opt, gamma=0.9)], milestones=[3])


def _sequential3(lib, opt):
    s = lib.optim.lr_scheduler
    return s.SequentialLR(opt, [s.LinearLR(opt, start_factor=0.1, total_iters=2),
                                s.CosineAnnealingLR(opt, T_max=3, eta_min=0.01),
                                s.StepLR(opt, step_size=2, gamma=0.5)], milestones=[2, 5])


def _chained(lib, opt):
    s = lib.optim.lr_scheduler
    return s.ChainedScheduler([s.ConstantLR(opt, factor=0.1, total_iters=2),
                               s.ExponentialLR(opt, gamma=0.9)])


def _chained_optimizer_arg(lib, opt):
    s = lib.optim.lr_scheduler
    return s.ChainedScheduler([s.PolynomialLR(opt, total_iters=4, power=1.5),
                               s.StepLR(opt, step_size=3, gamma=0.2)], optimizer=opt)


def _nested(lib, opt):
    s = lib.optim.lr_scheduler
    inner = s.ChainedScheduler([s.ConstantLR(opt, factor=0.5, total_iters=3),
                                s.ExponentialLR(opt, gamma=0.8)])
    return s.SequentialLR(opt, [inner, s.PolynomialLR(opt, total_iters=4)], milestones=[4])


COMPOSITES = {"sequential": _sequential, "sequential3": _sequential3, "chained": _chained,
              "chained_optimizer_arg": _chained_optimizer_arg, "nested": _nested}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_schedules(name):
    """lrs from construction on, the children's warnings (their constructors step before any
    ``optimizer.step()``), groups and the nested state_dict."""
    def scenario(lib):
        return _lrs_with_warnings(lib, COMPOSITES[name], _train)

    assert_parity(scenario)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_state_dict_round_trip(name):
    """Four epochs, ``state_dict`` into a freshly built composite on a fresh optimizer that
    loaded the optimizer's state_dict, four more epochs: the lrs continue as PyTorch's."""
    def scenario(lib):
        model, x, y = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched = COMPOSITES[name](lib, opt)
            _train(lib, opt, sched, lambda: None, lambda: loss_fn(model, x, y).backward(), 4)
            sd, osd = sched.state_dict(), opt.state_dict()
            opt2 = lib.optim.SGD(model.parameters(), lr=0.1)
            sched2 = COMPOSITES[name](lib, opt2)
            opt2.load_state_dict(osd)
            sched2.load_state_dict(sd)
            lrs = [sched2.get_last_lr()]
            _train(lib, opt2, sched2, lambda: lrs.append(_exact(sched2.get_last_lr())),
                   lambda: loss_fn(model, x, y).backward(), 4)
        return {"lrs": lrs, "sd_unchanged": list(sd), "state": _exact(_state(sched2))}

    assert_parity(scenario)


ROUND_TRIP = {
    "ConstantLR": dict(factor=0.5, total_iters=3),
    "PolynomialLR": dict(total_iters=5, power=0.5),
    "CosineAnnealingWarmRestarts": dict(T_0=2, T_mult=2, eta_min=0.005),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_state_dict_round_trip(name):
    def scenario(lib):
        model, x, y = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        cls = getattr(lib.optim.lr_scheduler, name)
        sched = cls(opt, **ROUND_TRIP[name])
        _train(lib, opt, sched, lambda: None, lambda: loss_fn(model, x, y).backward(), 3)
        sd = sched.state_dict()
        opt2 = lib.optim.SGD(model.parameters(), lr=0.1)
        opt2.load_state_dict(opt.state_dict())
        sched2 = cls(opt2, **ROUND_TRIP[name])
        sched2.load_state_dict(sd)
        lrs = []
        _train(lib, opt2, sched2, lambda: lrs.append(_exact(sched2.get_last_lr())),
               lambda: loss_fn(model, x, y).backward(), 5)
        return {"lrs": lrs, "sd": _exact(sd)}

    assert_parity(scenario)


def test_plateau_state_dict_round_trip():
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        s = lib.optim.lr_scheduler
        sched = s.ReduceLROnPlateau(opt, mode="max", patience=1, cooldown=1)
        for m in (1.0, 0.5, 0.5):
            sched.step(m)
        sd = sched.state_dict()
        sched2 = s.ReduceLROnPlateau(opt, patience=5)
        sched2.load_state_dict(sd)
        lrs = []
        for m in (0.5, 0.4, 0.3, 0.2, 2.0):
            sched2.step(m)
            lrs.append((sched2.get_last_lr(), sched2.num_bad_epochs, sched2.cooldown_counter))
        return {"lrs": lrs, "sd": _exact(sd), "mode": (sched2.mode, repr(sched2.mode_worse))}

    assert_parity(scenario)


@pytest.mark.parametrize("name,kwargs", [("ConstantLR", dict(factor=0.25, total_iters=3)),
                                         ("PolynomialLR", dict(total_iters=4, power=2.0))])
def test_closed_form_with_epoch(name, kwargs):
    """``step(epoch)`` (deprecated: UserWarning) uses the closed form."""
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.2)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for epoch in (1, 5, 2, 3, 0, 9):
                opt.step()
                sched.step(epoch)
                out.append(_exact(sched.get_last_lr()))
            sched.get_lr()
        return {"lrs": out, "warnings": [str(m.message) for m in w]}

    assert_parity(scenario)


def test_constructor_errors():
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        other = lib.optim.SGD(model.parameters(), lr=0.1)
        s = lib.optim.lr_scheduler
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exp = s.ExponentialLR(opt, 0.9)
            foreign = s.StepLR(other, 2)
            plateau = s.ReduceLROnPlateau(opt)
        return {
            "constant_factor": [err(lambda: s.ConstantLR(opt, factor=1.5)),
                                err(lambda: s.ConstantLR(opt, factor=-0.1))],
            "cawr": [err(lambda: s.CosineAnnealingWarmRestarts(opt, T_0=0)),
                     err(lambda: s.CosineAnnealingWarmRestarts(opt, T_0=2.0)),
                     err(lambda: s.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)),
                     err(lambda: s.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)),
                     err(lambda: s.CosineAnnealingWarmRestarts(opt, T_0=2, eta_min="0")),
                     err(lambda: s.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1))],
            "sequential": [err(lambda: s.SequentialLR(opt, [], [])),
                           err(lambda: s.SequentialLR(opt, [exp, plateau], [1])),
                           err(lambda: s.SequentialLR(opt, [exp, object()], [1])),
                           err(lambda: s.SequentialLR(opt, [exp, exp], [1, 2])),
                           err(lambda: s.SequentialLR(opt, [exp, foreign], [1]),
                               "expects all schedulers to belong to the same optimizer",
                               "got scheduler StepLR at index 1 has",
                               "which is different from SGD.")],
            "chained": [err(lambda: s.ChainedScheduler([])),
                        err(lambda: s.ChainedScheduler([exp, plateau])),
                        err(lambda: s.ChainedScheduler([object()], optimizer=opt)),
                        err(lambda: s.ChainedScheduler([exp, foreign]),
                            "expects all schedulers to belong to the same optimizer",
                            "got scheduler StepLR at index 1 has",
                            "which is different from SGD.")],
            "verbose": [err(lambda: s.ConstantLR(opt, verbose=True)),
                        err(lambda: s.PolynomialLR(opt, verbose=True))],
        }

    assert_parity(scenario)


@pytest.mark.parametrize("name", sorted(COMPOSITES) + ["ConstantLR", "CAWR", "plateau"])
def test_calling_order_warnings(name):
    """``scheduler.step()`` before any ``optimizer.step()`` warns as PyTorch (once, from the
    child that takes the step, for composites; never for ReduceLROnPlateau), and
    ``get_lr()`` outside ``step()`` warns too."""
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        s = lib.optim.lr_scheduler
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            if name == "ConstantLR":
                sched = s.ConstantLR(opt)
            elif name == "CAWR":
                sched = s.CosineAnnealingWarmRestarts(opt, T_0=3)
            elif name == "plateau":
                sched = s.ReduceLROnPlateau(opt)
            else:
                sched = COMPOSITES[name](lib, opt)
            lrs = []
            for _ in range(4):
                sched.step(1.0) if name == "plateau" else sched.step()
                lrs.append(_exact(sched.get_last_lr()))
            if name in ("ConstantLR", "CAWR"):
                sched.get_lr()
        return {"lrs": lrs, "warnings": [str(m.message) for m in w]}

    assert_parity(scenario)
