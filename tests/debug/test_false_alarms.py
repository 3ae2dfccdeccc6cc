"""The doctor's false alarms of issue 21, one test each (each failed before the fix): a tool
that cries wolf on a healthy model is not used twice."""

import io
import os

import numpy as np
import pytest
import torch
from rich.console import Console

import minigrad
from minigrad.debug import GradientFlowMonitor, first_nonfinite
from minigrad.debug.doctor import diagnose, run_doctor

from . import zoo

LIBS = pytest.mark.parametrize("lib", [minigrad, torch], ids=["minigrad", "torch"])
ZOO = os.path.join(os.path.dirname(__file__), "zoo.py")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")


def _doctor(name, framework):
    console = Console(file=io.StringIO(), width=250, record=True)
    code = run_doctor(f"{ZOO}:{name}", framework=framework, console=console)
    return code, " ".join(console.export_text().split())


@LIBS
def test_dict_output_is_heard(lib):
    """A full backward hook never fires for a dict output: the model looked unreached."""
    model, x = zoo.dict_output(lib)
    diag = diagnose(model, x)
    top = next(r for r in diag.monitor.records() if r.name == "(model)")
    assert not top.none and top.calls == 1 and top.flags == []
    assert diag.healthy, diag.problems


@LIBS
def test_frozen_parameters_named_as_frozen(lib):
    code, out = _doctor("frozen_backbone", lib.__name__)
    assert code == 0, out
    assert ("frozen (requires_grad=False, not trained, as intended): 2 parameter tensors: "
            "0.1.weight, 0.1.bias") not in out  # (the backbone's conv is 0.0)
    assert ("frozen (requires_grad=False, not trained, as intended): 2 parameter tensors: "
            "0.0.weight, 0.0.bias") in out
    assert "none" not in out.split("Verdict")[1]


@LIBS
def test_nan_is_not_blamed_on_the_stand_in_loss(lib):
    code, out = _doctor("log_of_relu", lib.__name__)
    assert code == 1
    assert "doctor.py" not in out and "MulBackward0" not in out, out
    assert "first made by LogBackward0 in the model at" in out


@LIBS
def test_no_stand_in_loss_nan_for_an_output_without_grad(lib):
    model = lib.nn.Sequential(lib.nn.Linear(3, 2))
    model.requires_grad_(False)
    diag = diagnose(model, lib.ones(2, 3))
    assert diag.loss is None
    assert diag.problems == ["nothing to train: every parameter has requires_grad=False"]
    console = Console(file=io.StringIO(), width=200, record=True)
    from minigrad.debug.doctor import render

    render(diag, console, "frozen")
    out = console.export_text()
    assert "= nan" not in out and "none (the output does not require grad)" in out


@LIBS
def test_zeros_beside_nan_are_no_dead_relu(lib):
    """Statistics over the finite entries were all zero next to NaNs: a false "zero" flag,
    and a "dead ReLUs?" lead."""
    fc = lib.nn.Linear(3, 3)
    x = lib.ones(2, 3)
    mask = lib.tensor(np.array([float("nan"), 0.0, 0.0], np.float32))
    with GradientFlowMonitor(fc) as mon:
        (fc(x) * mask).sum().backward()
    out = next(r for r in mon.records() if r.grad == "grad_output")
    assert (out.nan, out.inf, out.max_abs) == (2, 0, 0.0)  # stats over the 4 finite zeros
    assert out.flags == ["nan"]
    code, text = _doctor("sqrt_of_negative", lib.__name__)
    assert code == 1 and "dead ReLUs" not in text


def test_bias_before_batchnorm_is_not_vanishing():
    """A bias right before a training-mode BatchNorm has a ~0 gradient by construction."""
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 2))
    x = torch.randn(4, 3, 6, 6)
    diag = diagnose(model, x)
    bias = next(r for r in diag.monitor.records() if r.name == "0.bias")
    assert 0 < bias.abs_mean < 1e-7  # tiny indeed...
    assert bias.flags == [] and diag.healthy, diag.problems  # ...and not a problem
    code, out = _doctor("mobilenet_like", "torch")
    assert code == 0, out


@LIBS
def test_first_nonfinite_of_a_loss_tensor_names_the_producer(lib):
    """Given a finished loss, the node whose *forward* made the NaN (found from the saved
    tensors), not the first node that passed a NaN gradient on."""
    lib.manual_seed(0)
    fc, head = lib.nn.Linear(4, 6), lib.nn.Linear(6, 3)
    x = lib.tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    loss = -lib.nn.functional.log_softmax(head(lib.log(fc(x))), 1).mean()
    report = first_nonfinite(loss)
    assert report.forward is not None and report.forward.node == "LogBackward0", report
    assert report.backward is None, report  # every NaN gradient came from the forward's NaN
