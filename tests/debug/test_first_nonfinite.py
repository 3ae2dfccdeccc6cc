"""first_nonfinite: the node (and source line) that first produced NaN/Inf, forward or
backward, for minigrad and torch, compared with each other."""

import inspect
import warnings

import numpy as np
import pytest
import torch

import minigrad
from minigrad.debug import examples, first_nonfinite
from minigrad.parity import assert_parity


def _line_of(func, text):
    """Line number of the first source line of ``func`` containing ``text``."""
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _summary(report):
    def node(r):
        return None if r is None else (r.node, r.phase, r.index, r.nan, r.inf, r.line, r.code)
    return {"forward": node(report.forward), "backward": node(report.backward),
            "loss_finite": report.loss_finite, "ok": report.ok, "error": report.error}


def test_nan_model_names_log_and_its_line():
    def scenario(lib):
        model, x = examples.build_nan(lib)
        report = first_nonfinite(lambda: (model(x) ** 2).mean())
        assert all(p.grad is None for p in model.parameters())
        return _summary(report), report.forward.file

    (a, file), _ = assert_parity(scenario)
    line = _line_of(examples.build_nan, "z = lib.log(h)")
    assert a["forward"][:2] == ("LogBackward0", "forward") and a["forward"][3] > 0
    assert a["forward"][5:] == (line, "z = lib.log(h)  # the bug: h has negative entries")
    assert file == examples.__file__
    # the loss's PowBackward0 is the first node to return a NaN gradient, but only because it
    # saved the NaN output: it made nothing, so no backward culprit is named
    assert a["backward"] is None
    assert a["error"] == "Function 'PowBackward0' returned nan values in its 0th output."
    assert not a["loss_finite"] and not a["ok"]


def test_inf_in_forward_and_nan_only_in_backward():
    def scenario(lib):
        x = lib.tensor(np.array([1e30, 0.0], np.float32), requires_grad=True)

        def overflow():
            big = x * 1e30  # inf
            return (big * 0 + 1).sum()  # inf * 0 = nan in the loss

        def sqrt_at_zero():
            return (x.sqrt() * 0).sum()  # finite forward, d sqrt(0) = inf, * 0 = nan

        return _summary(first_nonfinite(overflow)), _summary(first_nonfinite(sqrt_at_zero))

    (over, sq), _ = assert_parity(scenario)
    assert over["forward"][:5] == ("MulBackward0", "forward", 0, 0, 1)
    assert over["forward"][6] == "big = x * 1e30  # inf"
    assert sq["forward"] is None and sq["loss_finite"]
    assert sq["backward"][:3] == ("SqrtBackward0", "backward", 0)
    assert sq["backward"][6] == "return (x.sqrt() * 0).sum()  # finite forward, d sqrt(0) = " \
        "inf, * 0 = nan"
    assert sq["error"] == "Function 'SqrtBackward0' returned nan values in its 0th output."


def test_tensor_argument_with_and_without_anomaly_forward():
    def scenario(lib):
        x = lib.tensor(np.array([0.0, 4.0], np.float32), requires_grad=True)
        plain = first_nonfinite((x.sqrt() * 0).sum())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                loss = (x.sqrt() * 0).sum()
        traced = first_nonfinite(loss)
        loss.backward()  # the graph was retained: still usable
        return _summary(plain), _summary(traced), str(plain).startswith("backward: Sqrt")

    (plain, traced, text), _ = assert_parity(scenario)
    assert plain["forward"] is None and plain["backward"][0] == "SqrtBackward0"
    assert plain["backward"][5] is None  # no forward traceback recorded
    assert traced["backward"][6] == "loss = (x.sqrt() * 0).sum()" and text


def test_healthy_and_bad_argument():
    model, x = examples.build_healthy(minigrad)
    report = first_nonfinite(model, x)
    assert report.ok and str(report) == "no NaN/Inf in the forward values or in the gradients"
    assert all(p.grad is None for p in model.parameters())
    with pytest.raises(TypeError, match="expects a callable or a tensor, got int"):
        first_nonfinite(3)

    def broken():
        model(x)
        raise ValueError("in forward")

    with pytest.raises(ValueError, match="in forward"):
        first_nonfinite(broken)
    anomaly = minigrad.autograd.anomaly_mode
    assert not anomaly.is_anomaly_enabled() and anomaly._node_watchers == []
    assert not torch.is_anomaly_enabled()
    assert torch.overrides._get_current_function_mode() is None


def test_forward_culprit_named_by_qualified_module():
    """The module whose forward ran the op is named by its qualified name, in both libraries."""
    def scenario(lib):
        nn = lib.nn

        class Log(nn.Module):
            def forward(self, x):
                return lib.log(x)  # negative inputs: NaN

        lib.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Tanh(), Log()), nn.Linear(4, 2))
        x = lib.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
        r = first_nonfinite(lambda: model(x).sum()).forward
        return r.node, r.module, r.code, r.label

    (node, module, code, label), _ = assert_parity(scenario)
    assert (node, module) == ("LogBackward0", "1.1")
    assert code == "return lib.log(x)  # negative inputs: NaN"
    assert label == "LogBackward0 in '1.1'"
