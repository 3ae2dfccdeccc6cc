"""``minigrad.save`` / ``minigrad.load``: round trips (minigrad and PyTorch state dicts) and
rejection of truncated, corrupted and crafted files without ever unpickling."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minigrad
from minigrad.parity import to_numpy
from minigrad.serialization import SerializationError, from_torch, to_torch

torch = pytest.importorskip("torch")


def build(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


X = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)


def same_tree(a, b):
    """Structural equality: container types, keys and order, numbers, tensors' values/dtype."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, minigrad.Tensor):
        assert a.dtype is b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same_tree(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_tree(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b
    return True


def roundtrip(obj, tmp_path):
    path = tmp_path / "obj.mg"
    minigrad.save(obj, path)
    return minigrad.load(path)


# ---------------------------------------------------------------------------------- round trips
def test_nested_objects_roundtrip(tmp_path):
    base = minigrad.arange(12, dtype=minigrad.float64).reshape(3, 4)
    obj = {
        "floats": [minigrad.tensor(1.5), minigrad.zeros(0, 3), base.t(), base[1]],
        "dtypes": [minigrad.ones(2, dtype=d) for d in (minigrad.float16, minigrad.float32,
                                                       minigrad.float64, minigrad.int32,
                                                       minigrad.int64, minigrad.uint8,
                                                       minigrad.bool)],
        "grad": minigrad.ones(2, requires_grad=True),
        "numbers": (1, -2.5, float("inf"), float("-inf"), float("nan"), True, None, "text"),
        3: OrderedDict([("b", 1), ("a", [2, (3,)])]),
        2.5: {},
        None: [],
    }
    assert same_tree(roundtrip(obj, tmp_path), obj)


def test_path_is_written_as_given_and_file_objects_work(tmp_path):
    path = tmp_path / "weights.bin"
    minigrad.save({"w": minigrad.ones(2)}, str(path))
    assert os.listdir(tmp_path) == ["weights.bin"]  # no ".npz" appended
    buf = io.BytesIO()
    minigrad.save([minigrad.ones(2), 3], buf)
    buf.seek(0)
    same_tree(minigrad.load(buf), [minigrad.ones(2), 3])


def test_module_and_optimizer_state_roundtrip(tmp_path):
    """Train 2 steps, save model + optimizer, reload into fresh objects, train 2 more steps:
    the same weights as 4 uninterrupted steps."""
    def step(m, opt):
        opt.zero_grad()
        m(minigrad.tensor(X)).pow(2).mean().backward()
        opt.step()

    m, ref = build(minigrad), build(minigrad)
    opt, ref_opt = (minigrad.optim.Adam(p.parameters(), lr=0.05) for p in (m, ref))
    for _ in range(2):
        step(m, opt)
        step(ref, ref_opt)
    loaded = roundtrip({"model": m.state_dict(), "optim": opt.state_dict()}, tmp_path)
    m2 = build(minigrad)
    m2.load_state_dict(loaded["model"])
    opt2 = minigrad.optim.Adam(m2.parameters(), lr=0.5)
    opt2.load_state_dict(loaded["optim"])
    assert opt2.param_groups[0]["lr"] == 0.05
    for _ in range(2):
        step(m2, opt2)
        step(ref, ref_opt)
    for (k, a), b in zip(m2.state_dict().items(), ref.state_dict().values()):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b), err_msg=k)


def test_pytorch_state_dict_roundtrip(tmp_path):
    """A PyTorch state dict saved by minigrad loads back into a PyTorch model unchanged, and
    minigrad's own weights saved by minigrad give PyTorch the same outputs."""
    tm = build(torch)
    path = tmp_path / "torch_weights.mg"
    minigrad.save(from_torch(tm.state_dict()), path)
    tm2 = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    tm2.load_state_dict(to_torch(minigrad.load(path)))
    for k, v in tm.state_dict().items():
        assert torch.equal(v, tm2.state_dict()[k]), k

    mm = build(minigrad)
    minigrad.save(mm.state_dict(), path)
    tm2.load_state_dict(to_torch(minigrad.load(path)))
    np.testing.assert_allclose(tm2(torch.tensor(X)).detach().numpy(),
                               to_numpy(mm(minigrad.tensor(X))), rtol=1e-6, atol=1e-7)


def test_conversion_keeps_dtype_and_requires_grad():
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3).requires_grad_()
    m = from_torch({"t": t, "i": torch.tensor([1, 2]), "n": [1.5]})
    assert m["t"].dtype is minigrad.float64 and m["t"].requires_grad
    assert m["i"].dtype is minigrad.int64 and m["n"] == [1.5]
    back = to_torch(m)
    assert back["t"].dtype == torch.float64 and back["t"].requires_grad
    assert torch.equal(back["t"].detach(), t.detach())


@pytest.mark.parametrize("bad", [lambda: None, object(), {1, 2}, b"bytes", {(1, 2): 3},
                                 [minigrad.nn.Linear(2, 2)]])
def test_unsupported_objects_are_refused(bad, tmp_path):
    with pytest.raises(SerializationError, match="cannot save"):
        minigrad.save({"x": bad}, tmp_path / "f")


# ---------------------------------------------------------------------------------- rejection
MARKER = "pickle_payload_ran"


class Payload:
    """Unpickling this runs a shell command that creates a marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def good_file(tmp_path) -> bytes:
    path = tmp_path / "good.mg"
    minigrad.save({"w": minigrad.arange(64, dtype=minigrad.float32), "n": 3}, path)
    return path.read_bytes()


def write_npz(path, entries):
    with open(path, "wb") as f:
        np.savez(f, **entries)


def manifest_entry(manifest: dict):
    return np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)


def load_fails(path, match=None) -> SerializationError:
    """``minigrad.load(path)`` raises SerializationError (matching ``match``); returns it."""
    with pytest.raises(SerializationError, match=match) as info:
        minigrad.load(path)
    return info.value


def test_payload_is_live(tmp_path):
    """Sanity check of the crafted payload: plain unpickling *does* run it."""
    marker = tmp_path / MARKER
    pickle.loads(pickle.dumps(Payload(marker)))
    assert marker.exists()


def test_npz_with_pickled_object_array_is_refused(tmp_path):
    marker = tmp_path / MARKER
    path = tmp_path / "evil.mg"
    root = {"type": "tensor", "key": "t0", "dtype": "float32", "shape": [1],
            "requires_grad": False}
    write_npz(path, {"__minigrad__": manifest_entry({"format": "minigrad.save", "version": 1,
                                                     "root": root}),
                     "t0": np.array([Payload(marker)], dtype=object)})
    load_fails(path, "cannot be read without unpickling")
    assert not marker.exists()


def test_raw_pickle_file_is_refused(tmp_path):
    marker = tmp_path / MARKER
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps({"w": Payload(marker)}))
    load_fails(path, "not a minigrad file")
    assert not marker.exists()


def test_pickle_inside_npy_entry_is_refused(tmp_path):
    """A .npy entry whose header declares an object dtype and whose body is a pickle."""
    marker = tmp_path / MARKER
    path = tmp_path / "evil.mg"
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([Payload(marker)], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("__minigrad__.npy", _npy(manifest_entry({"format": "minigrad.save",
                                                             "version": 1,
                                                             "root": {"type": "value",
                                                                      "value": None}})))
        z.writestr("t0.npy", buf.getvalue())
    load_fails(path, "without unpickling")
    assert not marker.exists()


def _npy(arr) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr)
    return buf.getvalue()


def test_torch_file_is_refused_with_a_hint(tmp_path):
    path = tmp_path / "model.pt"
    torch.save(build(torch).state_dict(), path)
    load_fails(path, "not a minigrad file")
    try:
        minigrad.load(path)
    except SerializationError as e:
        assert "PyTorch" in str(e) or "zip" in str(e).lower()


@pytest.mark.parametrize("cut", [0, 10, 100, 0.5, -30, -1])
def test_truncated_files_are_refused(cut, tmp_path):
    data = good_file(tmp_path)
    n = int(len(data) * cut) if isinstance(cut, float) else (cut if cut >= 0 else len(data) + cut)
    path = tmp_path / "cut.mg"
    path.write_bytes(data[:n])
    assert "cut.mg" in str(load_fails(path))  # the message names the refused file


def test_corrupted_array_bytes_are_refused(tmp_path):
    """A flipped byte inside a stored array fails the zip CRC check."""
    data = bytearray(good_file(tmp_path))
    pos = bytes(data).find(np.arange(64, dtype=np.float32)[10:12].tobytes())
    assert pos > 0
    data[pos] ^= 0xFF
    path = tmp_path / "flipped.mg"
    path.write_bytes(bytes(data))
    load_fails(path, "corrupted")


def test_random_garbage_is_refused(tmp_path):
    path = tmp_path / "garbage.mg"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    assert "garbage.mg" in str(load_fails(path, "not a minigrad file"))


GOOD_TENSOR = {"type": "tensor", "key": "t0", "dtype": "float32", "shape": [2],
               "requires_grad": False}


@pytest.mark.parametrize("manifest,entries,match", [
    ({"format": "other", "version": 1, "root": GOOD_TENSOR}, {}, "unknown manifest format"),
    ({"format": "minigrad.save", "version": 99, "root": GOOD_TENSOR}, {}, "version"),
    ({"format": "minigrad.save", "version": 1, "root": {"type": "module", "value": "os"}}, {},
     "unknown entry type"),
    ({"format": "minigrad.save", "version": 1, "root": dict(GOOD_TENSOR, key="t9")}, {},
     "missing or reused entry"),
    ({"format": "minigrad.save", "version": 1, "root": dict(GOOD_TENSOR, shape=[3])}, {},
     "the manifest says"),
    ({"format": "minigrad.save", "version": 1, "root": dict(GOOD_TENSOR, dtype="object")}, {},
     "unsupported dtype"),
    ({"format": "minigrad.save", "version": 1, "root": {"type": "list", "items": [GOOD_TENSOR,
                                                                                  GOOD_TENSOR]}},
     {}, "missing or reused"),
    ({"format": "minigrad.save", "version": 1, "root": GOOD_TENSOR},
     {"t1": np.zeros(2, np.float32)}, "unexpected entries"),
    ({"format": "minigrad.save", "version": 1, "root": {"type": "dict", "keys": [],
                                                        "values": [GOOD_TENSOR]}}, {},
     "malformed dict"),
    ({"format": "minigrad.save", "version": 1, "root": {"type": "int", "value": "1"}}, {},
     "malformed int"),
])
def test_crafted_manifests_are_refused(manifest, entries, match, tmp_path):
    path = tmp_path / "crafted.mg"
    write_npz(path, {"__minigrad__": manifest_entry(manifest), "t0": np.zeros(2, np.float32),
                     **entries})
    load_fails(path, match)


def test_malformed_manifest_json_is_refused(tmp_path):
    path = tmp_path / "crafted.mg"
    write_npz(path, {"__minigrad__": np.frombuffer(b"{not json", dtype=np.uint8)})
    assert "crafted.mg" in str(load_fails(path, "malformed manifest"))


def test_missing_manifest_is_refused(tmp_path):
    path = tmp_path / "plain.npz"
    write_npz(path, {"w": np.zeros(2)})
    assert "plain.npz" in str(load_fails(path, "no __minigrad__ entry"))


@pytest.mark.parametrize("name", ["int8", "int16", "float16", "bfloat16"])
def test_new_dtypes_roundtrip_and_convert(name, tmp_path):
    """The dtypes of issue 19 are saved and loaded (bfloat16 as its 16-bit patterns), and
    converted to and from PyTorch with their values."""
    if name == "bfloat16":
        pytest.importorskip("ml_dtypes")
    values = [1.5, -2.0, 3.25, 0.0]
    t = minigrad.tensor(values).to(getattr(minigrad, name))
    path = tmp_path / "t.pt"
    minigrad.save({"t": t}, path)
    same_tree(minigrad.load(path), {"t": t})
    theirs = torch.tensor(values).to(getattr(torch, name))
    mine = to_torch(t)
    assert mine.dtype == theirs.dtype and torch.equal(mine, theirs)
    back = from_torch(theirs)
    assert back.dtype is t.dtype
    np.testing.assert_array_equal(to_numpy(back.double()), to_numpy(theirs.double()))
