"""Parity of devices and defaults: ``device`` construction, attributes, equality, hashing,
printing and errors; ``Tensor.device``, ``device=`` on the factories, ``Tensor.to`` /
``Module.to`` forms (device, dtype, tensor, ``non_blocking``, ``copy``) and their errors; the
CPU-only answers (``cuda.is_available`` ...) and the error for moving to CUDA (compared with
PyTorch where it is a CPU-only build, as on CI); ``set/get_default_device``,
``set/get_default_dtype`` and what follows the default dtype; ``is_tensor``,
``is_floating_point``, ``numel``."""

import pickle

import numpy as np
import pytest

import minigrad
from minigrad.parity import capture_error, compare, run_both, to_numpy

from ._opcheck import dtype_name

torch = pytest.importorskip("torch")
CPU_ONLY_TORCH = not torch.cuda.is_available()


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Every test leaves the default dtype and device as it found them (both libraries)."""
    yield
    for lib in (minigrad, torch):
        lib.set_default_dtype(lib.float32)
        lib.set_default_device(None)


def D(id, *args, **kwargs):
    return pytest.param(args, kwargs, id=id)


DEVICES = [
    D("cpu", "cpu"), D("cpu0", "cpu:0"), D("cuda", "cuda"), D("cuda1", "cuda:1"),
    D("cuda10", "cuda:10"), D("type_index", "cuda", 2), D("cpu_index", "cpu", 0),
    D("kw", type="cuda", index=3), D("meta", "meta"), D("mps", "mps"),
]


def _device_facts(d):
    return {"type": d.type, "index": d.index, "str": str(d),
            "repr": repr(d).replace("torch.", "minigrad.")}


@pytest.mark.parametrize("args,kwargs", DEVICES)
def test_device_construction(args, kwargs):
    a, b = run_both(lambda lib: _device_facts(lib.device(*args, **kwargs)))
    compare(a, b)


def test_device_from_device_equality_hash_pickle(libs):
    def scenario(lib):
        d = lib.device("cuda:1")
        return {"copy": _device_facts(lib.device(d)),
                "eq": [lib.device("cpu") == lib.device("cpu"),
                       lib.device("cpu") == lib.device("cpu", 0),
                       lib.device("cuda", 1) == d, lib.device("cpu") == "cpu",
                       lib.device("cpu") != lib.device("cuda"), lib.device("cpu") == 3],
                "hash": hash(lib.device("cuda", 1)) == hash(d),
                "dict": {lib.device("cpu"): 1}.get(lib.device("cpu")),
                "pickle": str(pickle.loads(pickle.dumps(d)))}

    compare(*run_both(scenario))


BAD_DEVICES = [
    D("unknown_type", "gpu"), D("upper", "CPU"), D("space", " cpu"), D("bad_index", "cuda:x"),
    D("negative", "cuda:-1"), D("leading_zero", "cuda:01"), D("empty", ""),
    D("colon", "cuda:"), D("two_colons", "cuda:0:1"), D("neg_index", "cuda", -1),
    D("both_indices", "cuda:0", 1), D("float", 1.5), D("none", None),
    D("index_float", "cuda", 1.0), D("index_str", "cuda", "1"), D("int", 1),
    D("neg_int", -1), D("type_device_index", minigrad.device("cpu"), 0),
]


@pytest.mark.parametrize("args,kwargs", BAD_DEVICES)
def test_device_errors(args, kwargs):
    def scenario(lib):
        conv = [lib.device(str(a)) if isinstance(a, minigrad.device) else a for a in args]
        err = capture_error(lambda: lib.device(*conv, **kwargs))
        return err[0], err[1].split(":")[0].split(" - ")[0].split("(")[0][:40]

    a, b = run_both(scenario)
    if args and args[0] == 1 and not CPU_ONLY_TORCH:
        pytest.skip("a GPU build of torch accepts device 1")
    assert a[0] == b[0], (a, b)
    assert a[1] == b[1].replace("torch.", "minigrad."), (a, b)


def test_tensor_device_and_factories(libs):
    def scenario(lib):
        d = lib.device("cpu")
        made = [lib.tensor([1.0], device="cpu"), lib.zeros(2, device=d),
                lib.ones(2, device="cpu:0"), lib.empty(2, device="cpu"),
                lib.full((2,), 1.5, device="cpu"), lib.arange(3, device="cpu"),
                lib.linspace(0, 1, 3, device="cpu"), lib.eye(2, device="cpu"),
                lib.rand(2, device="cpu"), lib.randn(2, device="cpu"),
                lib.randint(3, (2,), device="cpu"), lib.randperm(3, device="cpu"),
                lib.zeros_like(lib.ones(2), device="cpu"),
                lib.ones_like(lib.ones(2), device="cpu"),
                lib.full_like(lib.ones(2), 3, device="cpu"),
                lib.rand_like(lib.ones(2), device="cpu"),
                lib.randn_like(lib.ones(2), device="cpu"),
                lib.empty_like(lib.ones(2), device="cpu"),
                lib.logspace(0, 1, 3, device="cpu"),
                lib.ones(2).new_zeros(3, device="cpu"), lib.as_tensor([1], device="cpu")]
        t = made[0]
        return {"devices": [repr(m.device) for m in made], "is_cuda": t.is_cuda,
                "get_device": t.get_device(), "str": str(t.device),
                "same": t.device == lib.device("cpu"), "cpu_is_self": t.cpu() is t,
                "cpu_fmt": t.cpu(memory_format=lib.contiguous_format) is t,
                "module": [repr(p.device) for p in lib.nn.Linear(2, 2, device="cpu")
                           .parameters()]}

    compare(*run_both(scenario))


TO_CALLS = [
    D("str", "cpu"), D("device", minigrad.device("cpu")), D("cpu0", "cpu:0"),
    D("dtype", "float64"), D("same_dtype", "float32"), D("device_dtype", "cpu", "float64"),
    D("kw_device_dtype", device="cpu", dtype="float64"), D("tensor", "TENSOR64"),
    D("copy", "float32", copy=True), D("device_copy", "cpu", copy=True),
    D("non_blocking", "cpu", non_blocking=True), D("positional_flags", "float32", False, True),
    D("nothing"), D("int_dtype", dtype="int64"), D("python_float", float),
    D("python_int", int), D("python_bool", bool),
]


def _to_args(lib, args, kwargs):
    def conv(v):
        if isinstance(v, minigrad.device):
            return lib.device(str(v))
        if v == "TENSOR64":
            return lib.zeros(1, dtype=lib.float64)
        if isinstance(v, str) and hasattr(lib, v) and v != "cpu":
            return getattr(lib, v)
        return v

    return [conv(a) for a in args], {k: conv(v) for k, v in kwargs.items()}


@pytest.mark.parametrize("args,kwargs", TO_CALLS)
def test_tensor_to(args, kwargs):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        a, k = _to_args(lib, args, kwargs)
        out = y.to(*a, **k)
        return {"same": out is y, "dtype": dtype_name(out.dtype), "value": to_numpy(out),
                "node": None if out.grad_fn is None else out.grad_fn.name(),
                "leaf_same": x.detach().to(*a, **k) is not None}

    compare(*run_both(scenario))


BAD_TO = [
    D("two_dtypes", "float32", "float64"), D("two_devices", "cpu", "cpu"),
    D("unknown_kw", foo=1), D("bad_device", "gpu"), D("accelerator_int", 0),
    D("dtype_twice", "float32", dtype="float64"),
]


@pytest.mark.parametrize("args,kwargs", BAD_TO)
def test_tensor_to_errors(args, kwargs):
    if args == (0,) and not CPU_ONLY_TORCH:
        pytest.skip("a GPU build of torch moves the tensor to device 0")

    def scenario(lib):
        a, k = _to_args(lib, args, kwargs)
        err = capture_error(lambda: lib.ones(2).to(*a, **k))
        return err[0], err[1].split(" - ")[0].split(":")[0].rstrip(".")

    a, b = run_both(scenario)
    compare(a, (b[0], b[1].replace("torch.", "minigrad.")))


def test_module_to(libs):
    def scenario(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        out = {"self": [m.to("cpu") is m, m.to(lib.device("cpu")) is m, m.cpu() is m,
                        m.to(non_blocking=True) is m]}
        m.to("cpu", lib.float64)
        out["cast"] = {n: dtype_name(t.dtype) for n, t in m.state_dict().items()}
        m.to(lib.ones(1, dtype=lib.float32))
        out["back"] = {n: dtype_name(t.dtype) for n, t in m.state_dict().items()}
        out["int"] = capture_error(lambda: m.to(lib.int64))
        return out

    a, b = run_both(scenario)
    compare(a, {**b, "int": (b["int"][0], b["int"][1].replace("torch.", "minigrad."))})


CUDA_MOVES = [
    pytest.param(lambda L: L.zeros(1, device="cuda"), id="factory"),
    pytest.param(lambda L: L.tensor([1.0], device="cuda:1"), id="tensor_factory"),
    pytest.param(lambda L: L.ones(1).to("cuda"), id="to"),
    pytest.param(lambda L: L.ones(1).to(L.device("cuda", 0), L.float64), id="to_dtype"),
    pytest.param(lambda L: L.ones(1).to("cuda", copy=True), id="to_copy"),
    pytest.param(lambda L: L.ones(1).cuda(), id="cuda"),
    pytest.param(lambda L: L.nn.Linear(2, 2).cuda(), id="module_cuda"),
    pytest.param(lambda L: L.nn.Linear(2, 2).to("cuda"), id="module_to"),
    pytest.param(lambda L: L.nn.Linear(2, 2, device="cuda"), id="module_device"),
    pytest.param(lambda L: L.ones(1).cuda(0), id="cuda_index"),
    pytest.param(lambda L: L.zeros(1, device=0), id="int_device"),
    pytest.param(lambda L: L.cuda.current_device(), id="current_device"),
    pytest.param(lambda L: L.cuda.get_device_name(), id="device_name"),
    pytest.param(lambda L: L.cuda.synchronize(), id="synchronize"),
]


@pytest.mark.parametrize("fn", CUDA_MOVES)
def test_moving_to_cuda_raises_as_cpu_only_torch(fn):
    ours = capture_error(lambda: fn(minigrad))
    assert ours is not None, "minigrad moved a tensor to CUDA"
    assert "minigrad computes with NumPy on the CPU" in ours[1]
    assert "PyTorch's side on a GPU" in ours[1]
    if not CPU_ONLY_TORCH:
        pytest.skip("torch has a GPU here: it moves the tensor; the type is checked on CI")
    theirs = capture_error(lambda: fn(torch))
    assert theirs is not None
    assert ours[0] == theirs[0], (ours, theirs)
    assert ours[1].startswith(theirs[1].rstrip("."))


def test_cuda_module_answers(libs):
    def scenario(lib):
        return [lib.cuda.is_available(), lib.cuda.device_count(), lib.cuda.is_initialized(),
                lib.cuda.manual_seed(0), lib.cuda.manual_seed_all(1), lib.cuda.seed_all(),
                lib.cuda.empty_cache(), lib.cuda.memory_allocated(),
                lib.cuda.is_bf16_supported(),
                str(lib.device("cuda" if lib.cuda.is_available() else "cpu"))]

    a, b = run_both(scenario)
    if not CPU_ONLY_TORCH:
        pytest.skip("torch has a GPU here")
    compare(a, b)


def test_default_device(libs):
    def scenario(lib):
        out = [repr(lib.get_default_device())]
        lib.set_default_device("cpu")
        out += [repr(lib.get_default_device()), repr(lib.zeros(1).device)]
        lib.set_default_device(lib.device("cpu"))
        with lib.device("cpu"):
            out.append(repr(lib.ones(1).device))
        lib.set_default_device(None)
        out.append(repr(lib.get_default_device()))
        out.append(capture_error(lambda: lib.set_default_device("gpu"))[0])
        return out

    compare(*run_both(scenario))


def test_set_default_device_cuda_refused():
    """PyTorch (CPU build) accepts ``set_default_device("cuda")`` and fails at the next
    factory call with AssertionError; minigrad raises the same type at once."""
    err = capture_error(lambda: minigrad.set_default_device("cuda"))
    assert err[0] == "AssertionError" and "NumPy on the CPU" in err[1]
    assert repr(minigrad.get_default_device()) == "device(type='cpu')"
    if CPU_ONLY_TORCH:
        torch.set_default_device("cuda")
        try:
            assert capture_error(lambda: torch.zeros(1))[0] == err[0]
        finally:
            torch.set_default_device(None)


def _floats_made(lib):
    """Everything that makes a floating tensor without being told a dtype."""
    i = lib.tensor([1, 2])
    return {
        "tensor": lib.tensor([1.5]), "tensor_empty": lib.tensor([]),
        "tensor_mixed": lib.tensor([1, 2.5]), "zeros": lib.zeros(2), "ones": lib.ones(2),
        "empty": lib.empty(2), "full": lib.full((2,), 1.5), "arange": lib.arange(0.5, 2),
        "arange_step": lib.arange(0, 2, 0.5), "linspace": lib.linspace(0, 1, 3),
        "logspace": lib.logspace(0, 1, 3), "eye": lib.eye(2), "rand": lib.rand(2),
        "randn": lib.randn(2), "normal": lib.normal(0.0, 1.0, (2,)),
        "int_div": i / 2, "int_true_div": i / i, "int_times_float": i * 0.5,
        "int_plus_float": i + 1.5, "int_exp": i.exp(), "int_sqrt": lib.sqrt(i),
        "bool_times_float": lib.tensor([True]) * 2.5,
        "float32_tensor": lib.tensor([1.0], dtype=lib.float32),
        "Tensor_ctor": lib.Tensor([1.5]),
        "np_float64": lib.tensor(np.array([1.0])), "float32_times_float":
            lib.tensor([1.0], dtype=lib.float32) * 2.5,
    }


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_default_dtype_followed(dtype):
    def scenario(lib):
        lib.set_default_dtype(getattr(lib, dtype))
        made = _floats_made(lib)
        return {"default": dtype_name(lib.get_default_dtype()),
                "dtypes": {k: dtype_name(v.dtype) for k, v in made.items()},
                "repr": {k: repr(made[k]).replace("torch.", "minigrad.")
                         for k in ("tensor", "float32_tensor", "np_float64", "int_div")}}

    compare(*run_both(scenario))


def test_model_under_float64_default_matches_torch(libs):
    def scenario(lib):
        lib.set_default_dtype(lib.float64)
        model = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2), lib.nn.ReLU(),
                                  lib.nn.Flatten(), lib.nn.Linear(8, 3), lib.nn.LayerNorm(3),
                                  lib.nn.Embedding(4, 3) if False else lib.nn.Identity())
        emb = lib.nn.Embedding(4, 3)
        x = lib.tensor(np.arange(16.0).reshape(1, 1, 4, 4).tolist())
        out = model(x)
        return {"state": {n: dtype_name(t.dtype) for n, t in model.state_dict().items()},
                "emb": dtype_name(emb.weight.dtype), "input": dtype_name(x.dtype),
                "out": dtype_name(out.dtype), "param": dtype_name(lib.nn.Parameter().dtype)}

    compare(*run_both(scenario))


BAD_DEFAULTS = [
    pytest.param(lambda L: L.set_default_dtype(L.int64), id="int64"),
    pytest.param(lambda L: L.set_default_dtype(L.bool), id="bool"),
    pytest.param(lambda L: L.set_default_dtype("float64"), id="string"),
    pytest.param(lambda L: L.set_default_dtype(float), id="python_float"),
]


@pytest.mark.parametrize("fn", BAD_DEFAULTS)
def test_set_default_dtype_errors(fn):
    def scenario(lib):
        err = capture_error(lambda: fn(lib))
        return err, dtype_name(lib.get_default_dtype())

    compare(*run_both(scenario))


def test_is_tensor_is_floating_point_numel(libs):
    def scenario(lib):
        x, i = lib.ones(2, 3), lib.tensor([1, 2])
        p = lib.nn.Parameter(lib.ones(2))
        return {"is_tensor": [lib.is_tensor(x), lib.is_tensor(p), lib.is_tensor(1),
                              lib.is_tensor(np.ones(2)), lib.is_tensor([x])],
                "is_fp": [lib.is_floating_point(x), lib.is_floating_point(i)],
                "numel": [lib.numel(x), lib.numel(i), lib.numel(lib.zeros(0, 3))],
                "errors": [capture_error(lambda: lib.is_floating_point(1.0)),
                           capture_error(lambda: lib.numel([1]))]}

    compare(*run_both(scenario))
