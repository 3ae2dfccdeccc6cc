"""Parity: ``Module.state_dict`` and ``load_state_dict`` — minigrad vs PyTorch.

Facts doc section 6 (state_dict) and 3.1 (versions). Loading accepts minigrad tensors, NumPy
arrays, array-likes and torch tensors. A rejected load leaves partial state, as PyTorch's: the
entries that matched are copied (``_version`` + 1) before the RuntimeError
(``test_rejected_load_leaves_partial_state``).
"""

from collections import OrderedDict

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err, mk

torch = pytest.importorskip("torch")


def is_torch(lib):
    return lib.__name__ == "torch"


def build(lib):
    """Linear + BatchNorm-like buffers + a nested Sequential: every kind of state entry."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("count", lib.tensor(0))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.scale = nn.Parameter(lib.tensor(1.5))
            self.head = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1, bias=False))

    return Net()


def arrays_for(lib_model, seed=0):
    """Fresh float32 arrays (int64 for integer buffers) shaped like every state_dict entry."""
    rng = np.random.default_rng(seed)
    out = OrderedDict()
    for k, v in lib_model.state_dict().items():
        shape = tuple(v.shape)
        if v.dtype.is_floating_point:
            out[k] = rng.standard_normal(shape).astype(np.float32)
        else:
            out[k] = rng.integers(0, 5, size=shape).astype(np.int64)
    return out


def snapshot(m):
    return {k: (to_numpy(v), v._version) for k, v in m.state_dict().items()}


def test_state_dict_structure(device):
    def scenario(lib, device):
        m = build(lib).to(device)
        sd = m.state_dict()
        kv = m.state_dict(keep_vars=True)
        out = {
            "keys": list(sd), "type": type(sd).__name__,
            "requires_grad": [v.requires_grad for v in sd.values()],
            "is_leaf": [v.is_leaf for v in sd.values()],
            "types": [type(v).__name__ for v in sd.values()],
            "keep_vars_types": [type(v).__name__ for v in kv.values()],
            "keep_vars_is_param": kv["fc.weight"] is m.fc.weight,
            "prefix": list(m.head.state_dict(prefix="h.")),
            "metadata": sorted(sd._metadata), "metadata_root": sd._metadata[""],
        }
        # Detached entries share storage and version counter with the parameter.
        entry = sd["fc.weight"]
        with lib.no_grad():
            m.fc.weight.mul_(0)
        out["shares_storage"] = (float(entry.abs().sum()), entry._version, m.fc.weight._version)
        entry.add_(1)
        out["writes_through"] = (to_numpy(m.fc.weight), m.fc.weight._version)
        return out

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("source", ["same_lib", "numpy", "lists", "torch_tensors"])
def test_load_state_dict_sources(source, device):
    """Load values from the same library, NumPy arrays, nested lists, or torch tensors."""
    arrays = arrays_for(build(torch), seed=1)

    def scenario(lib, device):
        m = build(lib).to(device)
        versions = {k: v._version for k, v in m.state_dict().items()}
        if source == "same_lib" or is_torch(lib):  # torch itself only accepts torch tensors
            sd = {k: mk(lib, device, v) for k, v in arrays.items()}
        elif source == "numpy":
            sd = dict(arrays)
        elif source == "lists":
            sd = {k: v.tolist() for k, v in arrays.items()}
        else:
            sd = {k: torch.tensor(v, requires_grad=v.dtype == np.float32).to(device)
                  for k, v in arrays.items()}
        r = m.load_state_dict(sd)
        return {
            "result": (repr(r), r.missing_keys, r.unexpected_keys, type(r).__name__),
            "values": {k: to_numpy(v) for k, v in m.state_dict().items()},
            "dtypes": {k: str(v.dtype).split(".")[-1] for k, v in m.state_dict().items()},
            "version_delta": {k: v._version - versions[k] for k, v in m.state_dict().items()},
            "still_params": [type(p).__name__ for p in m.parameters()],
            "requires_grad": [p.requires_grad for p in m.parameters()],
            "is_leaf": [p.is_leaf for p in m.parameters()],
        }

    assert_parity(scenario, device=device)


def test_load_torch_model_into_minigrad(device):
    """The paired-model workflow: torch weights copied into the minigrad twin."""
    torch.manual_seed(0)
    tm = build(torch).to(device)
    mm = build(minigrad)
    r = mm.load_state_dict(tm.state_dict())
    assert repr(r) == "<All keys matched successfully>"
    for (k, a), (k2, b) in zip(mm.state_dict().items(), tm.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    # ... and back: torch accepts minigrad's values through numpy.
    tm2 = build(torch)
    tm2.load_state_dict({k: torch.from_numpy(np.array(to_numpy(v))) for k, v in
                         mm.state_dict().items()})
    np.testing.assert_array_equal(to_numpy(tm2.fc.weight), to_numpy(tm.fc.weight))


def _bad_dicts(lib, device):
    arrays = arrays_for(build(torch), seed=2)
    good = {k: mk(lib, device, v) for k, v in arrays.items()}
    missing = {k: v for k, v in good.items() if k != "head.0.bias"}
    unexpected = dict(good, extra=mk(lib, device, np.ones(1, np.float32)))
    unexpected["head.0.extra"] = mk(lib, device, np.ones(1, np.float32))
    unexpected["zz.w"] = mk(lib, device, np.ones(1, np.float32))
    shape = dict(good)
    shape["fc.weight"] = mk(lib, device, np.ones((4, 3), np.float32))
    everything = {k: v for k, v in unexpected.items() if k != "running"}
    everything["head.2.weight"] = mk(lib, device, np.ones((2, 2), np.float32))
    not_tensor = dict(good, **{"fc.bias": "abc"})
    return {"missing": missing, "unexpected": unexpected, "shape": shape,
            "everything": everything, "not_tensor": not_tensor}


@pytest.mark.parametrize("case", ["missing", "unexpected", "shape", "everything", "not_tensor"])
def test_load_state_dict_errors(case, device):
    def scenario(lib, device):
        m = build(lib).to(device)
        sd = _bad_dicts(lib, device)[case]
        out = {"strict": err(lambda: m.load_state_dict(sd))}
        res = {}

        def non_strict():
            res["r"] = m.load_state_dict(sd, strict=False)

        out["non_strict_error"] = err(non_strict)  # size mismatches still raise
        if "r" in res:
            r = res["r"]
            out["non_strict"] = (r.missing_keys, r.unexpected_keys, repr(r))
        return out

    assert_parity(scenario, device=device)


def test_load_state_dict_misc():
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        out = {"not_mapping": err(lambda: m.load_state_dict([1, 2]))}
        # A 0-d parameter accepts a 1-element 1-d value.
        holder = build(lib)
        sd = {k: v.clone() for k, v in holder.state_dict().items()}
        sd["scale"] = lib.tensor([4.0])
        holder.load_state_dict(sd)
        out["scalar_from_1elem"] = (to_numpy(holder.scale), tuple(holder.scale.shape))
        # A None child swallows its keys silently; a None parameter is skipped.
        holder.head = None
        holder.register_parameter("maybe", None)
        r = holder.load_state_dict(sd)
        out["none_child"] = (r.missing_keys, r.unexpected_keys)
        # assign=True replaces the tensors (new objects, requires_grad kept).
        lin = lib.nn.Linear(2, 2)
        old = lin.weight
        lin.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.zeros(2)}, assign=True)
        out["assign"] = (lin.weight is old, type(lin.weight).__name__, lin.weight.requires_grad,
                         to_numpy(lin.weight))
        return out

    assert_parity(scenario)


@pytest.mark.parametrize("case", ["missing", "unexpected", "shape", "everything", "not_tensor"])
@pytest.mark.parametrize("assign", [False, True])
def test_rejected_load_leaves_partial_state(case, assign, device):
    """strict=True and a bad state dict: PyTorch copies (or, with ``assign``, puts in) every
    entry that matched, then raises; the values, ``_version``s and tensor identities left
    behind are the same in both libraries."""
    def scenario(lib, device):
        m = build(lib).to(device)
        m.load_state_dict({k: mk(lib, device, v) for k, v in arrays_for(build(torch)).items()})
        before = {k: (v, v._version) for k, v in m.state_dict(keep_vars=True).items()}
        error = err(lambda: m.load_state_dict(_bad_dicts(lib, device)[case], assign=assign))
        after = m.state_dict(keep_vars=True)
        return {"error": error,
                "values": {k: to_numpy(v) for k, v in after.items()},
                "replaced": {k: after[k] is not before[k][0] for k in after},
                "version_delta": {k: after[k]._version - before[k][1] for k in after
                                  if after[k] is before[k][0]}}

    assert_parity(scenario, device=device)
