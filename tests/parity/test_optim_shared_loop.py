"""Parity of the loop every single-tensor optimizer shares (``SingleTensorOptimizer.step`` in
``minigrad/optim/_single_tensor.py``): parameters without a gradient skipped, state made on the
first step (or by Adagrad's constructor, and by its first step for a group added later),
``maximize`` and both kinds of weight decay, for every optimizer that uses it.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

OPTIMIZERS = {
    "Adam": {}, "AdamW": {}, "Adagrad": {"initial_accumulator_value": 0.1, "lr_decay": 0.01},
    "RMSprop": {"momentum": 0.5, "centered": True}, "Adamax": {}, "NAdam": {},
    "RAdam": {"decoupled_weight_decay": True}, "Adadelta": {},
}
A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
B = np.array([0.3, -0.2], dtype=np.float32)


def _state(opt, params):
    return [{k: (to_numpy(v), v._version) if hasattr(v, "_version") else v
             for k, v in opt.state[p].items()} for p in params]


@pytest.mark.parametrize("opt_name", list(OPTIMIZERS))
def test_skip_maximize_weight_decay(opt_name):
    """Three steps with ``maximize`` and weight decay; the second parameter has a gradient
    only from the second step on (no state before it), a third never has one."""
    def scenario(lib):
        a, b = lib.nn.Parameter(lib.tensor(A)), lib.nn.Parameter(lib.tensor(B))
        never = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, opt_name)([a, b, never], lr=0.05, weight_decay=0.1,
                                           maximize=True, **OPTIMIZERS[opt_name])
        trace = []
        for i in range(3):
            opt.zero_grad()
            loss = (a * a).sum() + ((b * 3).sum() if i else 0.0)
            loss.backward()
            opt.step()
            trace.append({"params": [(to_numpy(p), p._version) for p in (a, b, never)],
                          "state": _state(opt, (a, b, never)),
                          "state_sizes": [len(opt.state[p]) for p in (a, b, never)]})
        return trace

    assert_parity(scenario)


@pytest.mark.parametrize("opt_name", list(OPTIMIZERS))
def test_group_added_after_construction_gets_state(opt_name):
    """``add_param_group`` after a step: the new group's parameters get their state from the
    next ``step()``; Adagrad's accumulator then starts at the constructor's
    ``initial_accumulator_value`` (PyTorch reads it from ``defaults``), not the group's."""
    def scenario(lib):
        a, b = lib.nn.Parameter(lib.tensor(A)), lib.nn.Parameter(lib.tensor(B))
        kwargs = dict(OPTIMIZERS[opt_name])
        opt = getattr(lib.optim, opt_name)([a], lr=0.05, **kwargs)
        (a * a).sum().backward()
        opt.step()
        group = {"params": [b], "lr": 0.01}
        if opt_name == "Adagrad":
            group["initial_accumulator_value"] = 5.0
        opt.add_param_group(group)
        before = len(opt.state[b])
        opt.zero_grad()
        ((a * a).sum() + (b * b * b).sum()).backward()
        opt.step()
        return {"before": before, "state": _state(opt, (a, b)),
                "params": [(to_numpy(p), p._version) for p in (a, b)]}

    assert_parity(scenario)
