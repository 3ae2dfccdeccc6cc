"""``explain_inplace_error``: six ways to hit "modified by an inplace operation", each explained
with the op that saved the tensor, the in-place op(s) that changed it and their lines, in
minigrad and torch (the same scenario code for both)."""

import inspect

import numpy as np
import pytest
import torch

import minigrad
from minigrad.debug import explain_inplace_error

LIBS = pytest.mark.parametrize("lib", [minigrad, torch], ids=["minigrad", "torch"])


def _line(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _x(lib, shape=(4, 3)):
    return lib.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def relu_inplace_after_sigmoid(lib):
    nn = lib.nn
    fc = nn.Linear(3, 5)
    act = nn.ReLU(inplace=True)
    x = _x(lib)

    def step():
        s = lib.sigmoid(fc(x))  # SigmoidBackward0 saves its output
        h = act(s)  # ...which ReLU(inplace=True) overwrites
        h.sum().backward()
    return step


def iadd_on_saved_activation(lib):
    fc = lib.nn.Linear(3, 5)
    x = _x(lib)

    def step():
        h = lib.tanh(fc(x))  # TanhBackward0 saves its output
        h += 1  # in place
        h.sum().backward()
    return step


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))


def optimizer_step_between_backwards(lib):
    model = _mlp(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x = _x(lib)

    def step():
        loss = (model(x) ** 2).mean()
        loss.backward(retain_graph=True)
        opt.step()  # changes the weights in place
        loss.backward()  # the graph still needs the old weight
    return step


def view_base_modified(lib):
    fc = lib.nn.Linear(3, 6)
    x = _x(lib)

    def step():
        h = fc(x)
        v = h.view(4, 2, 3)  # a view of h
        y = lib.exp(v)  # ExpBackward0 saves its output...
        w = y * v  # ...and MulBackward0 saves the view v
        h.mul_(2)  # the base changes: v changes with it
        w.sum().backward()
    return step


def manual_sgd_before_backward(lib):
    model = _mlp(lib)
    x = _x(lib)

    def step():
        loss = (model(x) ** 2).mean()
        with lib.no_grad():
            for p in model.parameters():
                p -= 0.1 * p  # a hand-written update, before backward
        loss.backward()
    return step


def hook_modifies_output(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 5), nn.Sigmoid(), nn.Linear(5, 2))

    def scale(module, args, output):
        output.mul_(2)  # a forward hook changing the Sigmoid's saved output
    model[1].register_forward_hook(scale)
    x = _x(lib)

    def step():
        model(x).sum().backward()
    return step


SCENARIOS = {
    relu_inplace_after_sigmoid: ("SigmoidBackward0", "h = act(s)", "Sigmoid",
                                   "instead of nn.ReLU(inplace=True)"),
    iadd_on_saved_activation: ("TanhBackward0", "h += 1", "Tanh", "x = x + y"),
    optimizer_step_between_backwards: (None, "opt.step()", None, "optimizer.step() only after"),
    view_base_modified: ("MulBackward0", "h.mul_(2)", None, ".clone()"),
    manual_sgd_before_backward: (None, "p -= 0.1 * p", None, "only after backward"),
    hook_modifies_output: ("SigmoidBackward0", "output.mul_(2)", "Sigmoid", "x.mul(2)"),
}


@LIBS
@pytest.mark.parametrize("scenario", list(SCENARIOS), ids=lambda f: f.__name__)
def test_explains_scenario(lib, scenario):
    saver, bump_code, producer, fix = SCENARIOS[scenario]
    ex = explain_inplace_error(scenario(lib))
    assert ex is not None
    text = str(ex)
    line = _line(scenario, bump_code)
    assert any(b.where.endswith(f":{line}: {bump_code}") or f":{line}: {bump_code}" in b.where
               for b in ex.bumps), text
    if saver is not None:
        assert ex.saved_by == saver, text
        assert ex.saved_at is not None and "test_inplace_explain.py" in ex.saved_at, text
    if producer is not None:
        assert ex.producer == producer, text
    assert fix in ex.fix, text
    assert ex.found > ex.expected


@LIBS
def test_no_error_gives_none(lib):
    fc = lib.nn.Linear(3, 2)
    assert explain_inplace_error(lambda: fc(_x(lib)).sum().backward()) is None
