"""Loading BatchNorm checkpoints that lack ``num_batches_tracked``, as PyTorch's
``_NormBase._load_from_state_dict``: a state dict of format version 1 or without version
metadata (a plain ``dict``, e.g. ``dict(model.named_parameters())``) keeps the layer's counter
and does not report the key missing; a version-2 state dict without it does (strict loading
fails). Compared on both libraries: missing/unexpected keys, errors, buffer values and
``_version``s, and that the caller's dict is not modified.
"""

from collections import OrderedDict

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

from .test_tensor_meta import err

torch = pytest.importorskip("torch")

W = np.array([0.5, 2.0, -1.0], dtype=np.float32)
X = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)


def _trained(lib, device, **kw):
    """A Sequential(Linear, BatchNorm1d) after two training batches (counter at 2)."""
    m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3, **kw)).to(device)
    with lib.no_grad():
        m[0].weight.copy_(lib.eye(3))
        m[0].bias.zero_()
    x = lib.tensor(X).to(device)
    m(x)
    m(x * 2)
    return m


def _state(lib, device, model, metadata_version, drop_counter=True):
    sd = OrderedDict((k, v.detach().clone()) for k, v in model.state_dict().items())
    if drop_counter:
        del sd["1.num_batches_tracked"]
    if metadata_version is not None:
        sd._metadata = OrderedDict([("", {"version": 1}), ("0", {"version": 1}),
                                    ("1", {"version": metadata_version})])
    return sd


def _after_load(lib, model):
    bn = model[1]
    return {"count": None if bn.num_batches_tracked is None else int(bn.num_batches_tracked),
            "count._version": None if bn.num_batches_tracked is None
            else bn.num_batches_tracked._version,
            "running_mean": to_numpy(bn.running_mean) if bn.running_mean is not None else None,
            "running_mean._version": None if bn.running_mean is None
            else bn.running_mean._version}


@pytest.mark.parametrize("version", [None, 1])
def test_old_format_without_counter_loads_strictly_and_keeps_the_counter(device, version):
    def scenario(lib, device):
        source = _trained(lib, device)
        target = _trained(lib, device)
        with lib.no_grad():
            target[1].num_batches_tracked.fill_(7)
        sd = _state(lib, device, source, version)
        keys_before = list(sd)
        result = target.load_state_dict(sd)  # strict: no "Missing key(s)" error
        return {"missing": result.missing_keys, "unexpected": result.unexpected_keys,
                "caller's dict untouched": list(sd) == keys_before, **_after_load(lib, target)}

    ours, _ = assert_parity(scenario, device=device)
    assert ours["missing"] == [] and ours["count"] == 7 and ours["caller's dict untouched"]


def test_version_2_without_counter_is_missing(device):
    def scenario(lib, device):
        target = _trained(lib, device)
        sd = _state(lib, device, _trained(lib, device), 2)
        fails = err(lambda: target.load_state_dict(sd))
        result = target.load_state_dict(sd, strict=False)
        return {"strict": fails, "missing": result.missing_keys}

    ours, _ = assert_parity(scenario, device=device)
    assert ours["missing"] == ["1.num_batches_tracked"]
    assert ours["strict"][0] == "RuntimeError" and "Missing key(s)" in ours["strict"][1]


def test_parameters_only_checkpoint_reports_the_running_statistics_missing(device):
    """``dict(named_parameters())``: a plain dict, no metadata: only the running statistics are
    missing; the counter is kept."""
    def scenario(lib, device):
        target = _trained(lib, device)
        fresh = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3)).to(device)
        result = fresh.load_state_dict(dict(target.named_parameters()), strict=False)
        return {"missing": result.missing_keys, **_after_load(lib, fresh)}

    ours, _ = assert_parity(scenario, device=device)
    assert ours["missing"] == ["1.running_mean", "1.running_var"] and ours["count"] == 0


@pytest.mark.parametrize("kw", [{"track_running_stats": False}, {"momentum": None}],
                         ids=["no_stats", "cumulative"])
def test_plain_dict_with_other_options(device, kw):
    def scenario(lib, device):
        target = _trained(lib, device, **kw)
        sd = {k: v for k, v in _trained(lib, device, **kw).state_dict().items()
              if not k.endswith("num_batches_tracked")}
        result = target.load_state_dict(sd, strict=False)
        return {"missing": result.missing_keys, "unexpected": result.unexpected_keys,
                **_after_load(lib, target)}

    ours, _ = assert_parity(scenario, device=device)
    assert ours["missing"] == []
