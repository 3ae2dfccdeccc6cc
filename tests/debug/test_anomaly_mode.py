"""Anomaly mode parity: forward tracebacks in ``metadata``, NaN errors, warnings, switches."""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity


def _last_frame(node):
    """(function name, source line) of the last frame of a node's forward traceback."""
    stack = node.metadata.get("traceback_")
    if stack is None:
        return None
    last = stack[-1].splitlines()
    return last[0].rsplit(" in ", 1)[1], last[1].strip()


def _run(fn):
    """Run ``fn()``; return (error type, message, warning messages other than 'enabled')."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except RuntimeError as e:
            err = (type(e).__name__, str(e))
    msgs = [str(w.message) for w in caught if "has been enabled" not in str(w.message)]
    return err, msgs


def _log_then_exp(x):
    return x.log()


def test_traceback_metadata_and_nan_error(device):
    def scenario(lib, device):
        x = lib.tensor(np.array([0.0, 2.0], np.float32), requires_grad=True)
        x = x.to(device).detach().requires_grad_() if device != "cpu" else x
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                y = _log_then_exp(x)
                z = y.exp() * 1
        out = {"keys": sorted(y.grad_fn.metadata), "log": _last_frame(y.grad_fn),
               "mul": _last_frame(z.grad_fn), "acc": _last_frame(
                   y.grad_fn.next_functions[0][0])}

        def back():
            with lib.autograd.detect_anomaly():
                z.sum().backward()

        err, msgs = _run(back)
        out["err"] = err
        # the warning names the node and shows the forward line
        out["warn"] = [(m.split(".")[0], "y = _log_then_exp(x)" in m, "return x.log()" in m)
                       for m in msgs if m.startswith("Error detected")]
        return out

    a, _ = assert_parity(scenario, device=device)
    assert a["err"] == ("RuntimeError", "Function 'LogBackward0' returned nan values in its 0th "
                        "output.")
    assert a["log"] == ("_log_then_exp", "return x.log()")
    assert a["warn"] == [("Error detected in LogBackward0", True, True)]


def test_no_forward_information_and_check_nan_false():
    def scenario(lib):
        x = lib.tensor(np.array([0.0, 4.0], np.float32), requires_grad=True)
        y = x.sqrt()  # made outside anomaly mode: no traceback
        out = {"meta": dict(y.grad_fn.metadata)}

        def back(check_nan):
            def run():
                with lib.autograd.detect_anomaly(check_nan=check_nan):
                    (y * 0).sum().backward(retain_graph=True)
            return run

        out["err"], msgs = _run(back(True))
        out["warn"] = [m.split("(Triggered")[0].strip() for m in msgs]
        out["unchecked"] = _run(back(False))
        out["grad"] = x.grad.numpy().copy()
        return out

    a, _ = assert_parity(scenario)
    assert a["err"][1] == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert "No forward pass information available" in a["warn"][0]
    assert a["unchecked"] == (None, [])
    assert np.isnan(a["grad"][0])


def test_switches_and_enabled_warning():
    def scenario(lib):
        # torch exposes the getters at top level (torch.is_anomaly_enabled); minigrad in
        # minigrad.autograd.anomaly_mode
        anomaly = lib if hasattr(lib, "is_anomaly_enabled") else lib.autograd.anomaly_mode
        states = [(anomaly.is_anomaly_enabled(), anomaly.is_anomaly_check_nan_enabled())]
        lib.autograd.set_detect_anomaly(True)
        states.append((anomaly.is_anomaly_enabled(), anomaly.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(False)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            states.append((anomaly.is_anomaly_enabled(),
                           anomaly.is_anomaly_check_nan_enabled()))
        states.append((anomaly.is_anomaly_enabled(), anomaly.is_anomaly_check_nan_enabled()))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            with lib.autograd.detect_anomaly():
                states.append(anomaly.is_anomaly_enabled())
        states.append([str(w.message) for w in caught])
        x = lib.tensor([1.0], requires_grad=True)
        states.append(dict((x * 2).grad_fn.metadata))  # off: nothing recorded
        return states

    a, _ = assert_parity(scenario)
    assert a[1] == (True, True) and a[2] == (True, False) and a[3] == (False, True)
    assert a[4] is True and "Anomaly Detection has been enabled" in a[5][0]


def test_error_in_node_warns_with_traceback():
    def scenario(lib):
        x = lib.tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                y = x.sigmoid()
                y.mul_(2)

                def back():
                    y.sum().backward()

                err, msgs = _run(back)
        return {"err": err[0], "version": "inplace operation" in err[1],
                "warn": [m.startswith("Error detected in SigmoidBackward0") and "x.sigmoid()" in m
                         for m in msgs]}

    a, _ = assert_parity(scenario)
    assert a == {"err": "RuntimeError", "version": True, "warn": [True]}


def test_anomaly_mode_off_by_default_after_errors(libs):
    assert libs[1].is_anomaly_enabled() is False
    assert libs[0].autograd.anomaly_mode.is_anomaly_enabled() is False
    with pytest.raises(ZeroDivisionError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with libs[0].autograd.detect_anomaly():
                raise ZeroDivisionError
    assert libs[0].autograd.anomaly_mode.is_anomaly_enabled() is False
