"""``minigrad.save`` / ``minigrad.load``: state dicts on disk in a format that never unpickles.

Mirrors the API of ``torch/serialization.py`` (``torch.save(obj, f)``, ``torch.load(f)``) but
not its format: PyTorch pickles the object (``torch.load`` then has to restrict what the
unpickler may build, ``weights_only=True``); minigrad writes a NumPy ``.npz`` zip archive that
holds only

- ``__minigrad__.npy``: a uint8 array with a JSON *manifest* describing the object tree, and
- ``t0.npy``, ``t1.npy`` ...: one plain array per tensor (float16/32/64, int8/16/32/64, uint8,
  bool; a bfloat16 tensor is stored as its 16-bit patterns, a uint16 array, since ``.npy`` has
  no bfloat16),

and reads it back with ``np.load(..., allow_pickle=False)`` and a strict check of the manifest.
Loading therefore never executes code from the file: object arrays, unknown entries, unknown
node types or dtypes, shapes that disagree with the manifest, truncated or corrupted archives
(zip CRC checks) are all rejected with `SerializationError`.

What can be saved: tensors (values, dtype, shape and ``requires_grad``; views are saved as
independent copies), ``dict`` / ``OrderedDict`` (str, int, float, bool or None keys), ``list``,
``tuple``, and ``int``, ``float``, ``bool``, ``str``, ``None`` — i.e. module and optimizer state
dicts and nested containers of them. `from_torch` and `to_torch` convert such
objects between minigrad and PyTorch, so a PyTorch state dict can be saved by minigrad and
loaded back into a PyTorch model.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from collections import OrderedDict

import numpy as np

from . import _dtype
from ._tensor import Tensor

__all__ = ["save", "load", "from_torch", "to_torch", "SerializationError"]

FORMAT = "minigrad.save"
VERSION = 1
MANIFEST = "__minigrad__"
DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
          "bool")
MAX_MANIFEST_BYTES = 64 * 2**20


class SerializationError(RuntimeError):
    """A file could not be saved or loaded: what is wrong with it, and where."""


# ---------------------------------------------------------------------------------- save
def _encode(obj, arrays: list, path: str):
    """The manifest node for ``obj``; tensors' arrays are appended to ``arrays``."""
    if isinstance(obj, Tensor):
        name = obj.dtype.name
        if name not in DTYPES:
            raise SerializationError(f"cannot save {path}: dtype {name} is not supported")
        arr = np.array(obj._data, order="C")  # (ascontiguousarray makes 0-dim 1-dim)
        arrays.append(arr.view(np.uint16) if name == "bfloat16" else arr)
        return {"type": "tensor", "key": f"t{len(arrays) - 1}", "dtype": name,
                "shape": list(obj.shape), "requires_grad": bool(obj._requires_grad)}
    if obj is None or isinstance(obj, (bool, str)):
        return {"type": "value", "value": obj}
    if isinstance(obj, (int, np.integer)):
        return {"type": "int", "value": int(obj)}
    if isinstance(obj, (float, np.floating)):
        v = float(obj)  # JSON has no inf/nan: store those as text
        return {"type": "float", "value": v if math.isfinite(v) else repr(v)}
    if isinstance(obj, dict):
        keys = []
        for k in obj:
            if k is not None and not isinstance(k, (str, int, float, bool)):
                raise SerializationError(f"cannot save {path}: dict key {k!r} of type "
                                         f"{type(k).__name__} (str, int, float, bool or None "
                                         "keys only)")
            keys.append(_encode(k, arrays, path))
        return {"type": "ordereddict" if isinstance(obj, OrderedDict) else "dict", "keys": keys,
                "values": [_encode(v, arrays, f"{path}[{k!r}]") for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        return {"type": type(obj).__name__,
                "items": [_encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(obj)]}
    raise SerializationError(f"cannot save {path}: objects of type {type(obj).__name__} are not "
                             "supported (tensors, dicts, lists, tuples, numbers, str and None "
                             "only; minigrad.save never pickles)")


def save(obj, f) -> None:
    """Save ``obj`` (a state dict, or nested dicts/lists/tuples of tensors and numbers) to
    ``f``, a path (written exactly as given, no extension added) or a binary file object
    (``torch.save``). Raises `SerializationError` for objects it cannot store."""
    arrays: list = []
    manifest = {"format": FORMAT, "version": VERSION, "root": _encode(obj, arrays, "obj")}
    entries = {MANIFEST: np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)}
    entries.update({f"t{i}": a for i, a in enumerate(arrays)})
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            np.savez(fh, **entries)
    else:
        np.savez(f, **entries)


# ---------------------------------------------------------------------------------- load
def _fail(where: str, problem: str):
    raise SerializationError(f"{where}: {problem}")


def _decode(node, arrays, used: set, where: str, path: str = "obj"):
    """Rebuild the object described by manifest ``node``, checking every field."""
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        _fail(where, f"malformed manifest entry at {path}")
    kind = node["type"]
    if kind == "tensor":
        key, dtype, shape = node.get("key"), node.get("dtype"), node.get("shape")
        if not isinstance(key, str) or key not in arrays or key in used:
            _fail(where, f"tensor at {path} refers to a missing or reused entry {key!r}")
        if dtype not in DTYPES:
            _fail(where, f"tensor at {path} has an unsupported dtype {dtype!r}")
        if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
            _fail(where, f"tensor at {path} has a malformed shape {shape!r}")
        arr = arrays[key]
        if dtype == "bfloat16" and arr.dtype == np.uint16:  # (its bit patterns, see above)
            arr = arr.view(_dtype.bfloat16.np)  # (ImportError without ml_dtypes)
        if arr.dtype != _dtype.to_numpy_dtype(_dtype._by_name(dtype)) or list(arr.shape) != shape:
            _fail(where, f"tensor at {path}: the stored array is {arr.dtype}{list(arr.shape)}, "
                         f"the manifest says {dtype}{shape}")
        used.add(key)
        t = Tensor._make(np.array(arr, copy=True))
        if node.get("requires_grad") is True and t.dtype.is_floating_point:
            t._requires_grad = True
        return t
    if kind == "value":
        v = node.get("value")
        if v is not None and not isinstance(v, (bool, str)):
            _fail(where, f"malformed value at {path}")
        return v
    if kind == "int":
        v = node.get("value")
        if not isinstance(v, int) or isinstance(v, bool):
            _fail(where, f"malformed int at {path}")
        return v
    if kind == "float":
        v = node.get("value")
        if isinstance(v, str) and v in ("inf", "-inf", "nan"):
            return float(v)
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            _fail(where, f"malformed float at {path}")
        return float(v)
    if kind in ("dict", "ordereddict"):
        keys, values = node.get("keys"), node.get("values")
        if not isinstance(keys, list) or not isinstance(values, list) or len(keys) != len(values):
            _fail(where, f"malformed dict at {path}")
        out = OrderedDict() if kind == "ordereddict" else {}
        for k, v in zip(keys, values):
            key = _decode(k, arrays, used, where, f"{path}.<key>")
            if isinstance(key, (Tensor, list, tuple, dict)):
                _fail(where, f"dict key at {path} is not a str, number or None")
            out[key] = _decode(v, arrays, used, where, f"{path}[{key!r}]")
        return out
    if kind in ("list", "tuple"):
        items = node.get("items")
        if not isinstance(items, list):
            _fail(where, f"malformed {kind} at {path}")
        out = [_decode(v, arrays, used, where, f"{path}[{i}]") for i, v in enumerate(items)]
        return out if kind == "list" else tuple(out)
    _fail(where, f"unknown entry type {kind!r} at {path}")


def _read_archive(f, where: str) -> dict:
    """Every array of the ``.npz`` archive (pickles refused), with PyTorch-file detection."""
    try:
        npz = np.load(f, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        _fail(where, f"not a minigrad file, or truncated / corrupted ({type(e).__name__}: {e})")
    if not isinstance(npz, np.lib.npyio.NpzFile):
        _fail(where, "not a minigrad file (a single .npy array, not a minigrad archive)")
    with npz:
        names = list(npz.files)
        if MANIFEST not in names:
            hint = ""
            if any(n.endswith("data.pkl") or n == "data" for n in names):
                hint = (" This looks like a PyTorch file: load it with torch.load(..., "
                        "weights_only=True) and convert with minigrad.serialization.from_torch.")
            _fail(where, f"not a minigrad file (no {MANIFEST} entry).{hint}")
        arrays = {}
        for name in names:
            try:
                arrays[name] = npz[name]
            except ValueError as e:  # object arrays: a pickle inside
                _fail(where, f"entry {name!r} cannot be read without unpickling, refused ({e})")
            except (OSError, EOFError, zipfile.BadZipFile, KeyError) as e:
                _fail(where, f"entry {name!r} is truncated or corrupted ({type(e).__name__}: "
                             f"{e})")
    return arrays


def load(f, map_location=None, weights_only: bool = True):
    """Load an object saved by `save` from a path or binary file object (``torch.load``).

    Never unpickles and never executes code from the file. ``map_location`` is accepted for
    compatibility (everything is on the CPU); ``weights_only`` is always effectively True.
    Raises `SerializationError` (a RuntimeError) naming the problem for a file that is
    not a minigrad file, is truncated or corrupted, contains a pickle, or whose manifest is
    malformed or disagrees with the stored arrays.
    """
    del map_location, weights_only
    where = f"minigrad.load({f!r})" if isinstance(f, (str, os.PathLike)) else "minigrad.load"
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    arrays = _read_archive(io.BytesIO(data), where)
    raw = arrays.pop(MANIFEST)
    if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > MAX_MANIFEST_BYTES:
        _fail(where, "malformed manifest")
    try:
        manifest = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        _fail(where, f"malformed manifest ({e})")
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        _fail(where, "not a minigrad file (unknown manifest format)")
    if manifest.get("version") != VERSION:
        _fail(where, f"unsupported format version {manifest.get('version')!r} (this minigrad "
                     f"reads version {VERSION})")
    used: set = set()
    obj = _decode(manifest.get("root"), arrays, used, where)
    extra = sorted(set(arrays) - used)
    if extra:
        _fail(where, f"unexpected entries {extra} that the manifest does not describe")
    return obj


# ---------------------------------------------------------------------------------- torch
def from_torch(obj):
    """A copy of ``obj`` with every ``torch.Tensor`` replaced by a minigrad tensor (same values,
    dtype, shape and ``requires_grad``); containers and numbers are kept."""
    if hasattr(obj, "detach") and hasattr(obj, "cpu") and not isinstance(obj, Tensor):
        src = obj.detach().cpu()
        if str(src.dtype) == "torch.bfloat16":  # (no NumPy bfloat16 in torch: the bits)
            import torch

            arr = src.view(torch.int16).numpy().view(_dtype.bfloat16.np)
        else:
            arr = src.numpy()
        t = Tensor._make(np.array(arr, copy=True))
        t._requires_grad = bool(obj.requires_grad) and t.dtype.is_floating_point
        return t
    if isinstance(obj, dict):
        return type(obj)((k, from_torch(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(from_torch(v) for v in obj)
    return obj


def to_torch(obj):
    """A copy of ``obj`` with every minigrad tensor replaced by a ``torch.Tensor`` (imports
    torch lazily); e.g. ``torch_model.load_state_dict(to_torch(minigrad.load(path)))``."""
    import torch

    if isinstance(obj, Tensor):
        if obj.dtype is _dtype.bfloat16:  # (through its bit patterns, as int16)
            bits = torch.from_numpy(obj._data.view(np.int16).copy()).view(torch.bfloat16)
            return bits.requires_grad_(obj._requires_grad)
        return torch.tensor(obj._data.copy(), requires_grad=obj._requires_grad)
    if isinstance(obj, dict):
        return type(obj)((k, to_torch(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_torch(v) for v in obj)
    return obj
