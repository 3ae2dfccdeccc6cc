"""Parity: the dtypes of issue 19 (int8, int16, int32, uint8, float16, bfloat16 next to
float32/float64/int64/bool) — dtype objects, type promotion for every pair (tensors, 0-dim
tensors, Python numbers), ``promote_types`` / ``result_type`` / ``can_cast``, ``finfo`` /
``iinfo``, ``Tensor.type()``, the conversion methods with their gradients, ``Module.half()`` /
``bfloat16()``, float16 arithmetic, and the errors PyTorch raises — minigrad vs PyTorch.

bfloat16 needs the optional package ml_dtypes: its cases are skipped without it (the error
minigrad gives then is tested in tests/unit/test_dtypes_optional.py).
"""

import importlib.util
import itertools

import numpy as np
import pytest

from minigrad.parity import assert_parity, compare, run_both, to_numpy

HAVE_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None
needs_bf16 = pytest.mark.skipif(not HAVE_ML_DTYPES, reason="bfloat16 needs ml_dtypes")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
if HAVE_ML_DTYPES:
    NAMES.insert(7, "bfloat16")
PAIRS = list(itertools.product(NAMES, NAMES))


def dname(d) -> str:
    """A dtype (or a tensor's dtype) by its bare name: 'float16' for torch.float16 and for
    minigrad.float16."""
    d = getattr(d, "dtype", d)
    return repr(d).split(".", 1)[1]


def values(t):
    """A tensor's values as float64 (bfloat16 has no NumPy type in torch's ``.numpy()``)."""
    return to_numpy(t.detach().double())


def err(fn, *phrases):
    """(exception type name, [phrase in message, ...]) of what ``fn()`` raises, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, [p in str(e) for p in phrases]
    return None


# Small values every dtype holds exactly (no negatives: uint8), per dtype
def sample(lib, name, shape=(3,)):
    arr = (np.arange(int(np.prod(shape))).reshape(shape) % 3 + 1)
    if name == "bool":
        arr = arr % 2 == 1
    return lib.tensor(arr.tolist(), dtype=getattr(lib, name))


# -------------------------------------------------------------------------- dtype objects
def test_dtype_objects_and_aliases():
    """Every dtype and alias, spelled out: name, is_floating_point, itemsize, is_signed,
    is_complex, to_real(). bfloat16 answers these without ml_dtypes too."""
    def scenario(lib):
        dtypes = [lib.bool, lib.uint8, lib.int8, lib.int16, lib.short, lib.int32, lib.int,
                  lib.int64, lib.long, lib.float16, lib.half, lib.bfloat16, lib.float32,
                  lib.float, lib.float64, lib.double]
        return [(dname(d), d.is_floating_point, d.itemsize, d.is_signed, d.is_complex,
                 repr(d).split(".")[0], dname(d.to_real())) for d in dtypes]

    a, b = run_both(scenario)
    prefixes = {v[5] for v in a}, {v[5] for v in b}
    assert prefixes == ({"minigrad"}, {"torch"})  # the module's own name, as dtypes print
    compare([v[:5] + v[6:] for v in a], [v[:5] + v[6:] for v in b])


def test_alias_identity():
    import minigrad

    for alias, name in [("short", "int16"), ("int", "int32"), ("long", "int64"),
                        ("half", "float16"), ("float", "float32"), ("double", "float64")]:
        assert getattr(minigrad, alias) is getattr(minigrad, name)


# ---------------------------------------------------------------------- promotion tables
def test_promote_types_every_pair():
    def scenario(lib):
        return {f"{x},{y}": dname(lib.promote_types(getattr(lib, x), getattr(lib, y)))
                for x, y in PAIRS}

    assert_parity(scenario)


def test_can_cast_every_pair():
    def scenario(lib):
        return {f"{x},{y}": lib.can_cast(getattr(lib, x), getattr(lib, y)) for x, y in PAIRS}

    assert_parity(scenario)


SCALARS = {"py_bool": True, "py_int": 2, "py_float": 2.5}


def _operand(lib, name, form):
    """An operand of dtype ``name`` shaped as ``form``: a dimensioned tensor or a 0-dim one."""
    t = sample(lib, name)
    return t if form == "dim" else t[1]


@pytest.mark.parametrize("form_b", ["dim", "zero_dim"])
@pytest.mark.parametrize("form_a", ["dim", "zero_dim"])
def test_binary_promotion_tensors(form_a, form_b):
    """``a + b`` and ``a * b`` for every pair of dtypes and both tensor forms (dimensioned,
    0-dim): the result dtype, ``result_type``, and the values."""
    def scenario(lib):
        out = {}
        for x, y in PAIRS:
            a, b = _operand(lib, x, form_a), _operand(lib, y, form_b)
            s, p = a + b, a * b
            out[f"{x},{y}"] = (dname(s), dname(p), dname(lib.result_type(a, b)), values(s),
                               values(p))
        return out

    assert_parity(scenario)


PAIR_OPS = {
    "sub": lambda lib, a, b: a - b,
    "div": lambda lib, a, b: a / b,
    "floor_div": lambda lib, a, b: a // b,
    "trunc_div": lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
    "remainder": lambda lib, a, b: a % b,
    "pow": lambda lib, a, b: a ** b,
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "where": lambda lib, a, b: lib.where(a > 0, a, b),
    "eq": lambda lib, a, b: a == b,
    "lt": lambda lib, a, b: a < b,
    "cat": lambda lib, a, b: lib.cat([a, b.reshape(-1)]),
}


@pytest.mark.parametrize("form_b", ["dim", "zero_dim"])
def test_binary_ops_every_pair(form_b):
    """More ops on every pair of dtypes (``b`` holds a 0): the result dtype and values, or
    PyTorch's error (bool subtraction, integer division by zero with a rounding mode, no bool
    kernel for pow/remainder/floor division)."""
    def scenario(lib):
        out = {}
        for x, y in PAIRS:
            a = lib.tensor([1, 2, 3], dtype=getattr(lib, x))
            b = lib.tensor([2, 0, 1], dtype=getattr(lib, y))
            b = b if form_b == "dim" else b[0]
            for name, fn in PAIR_OPS.items():
                try:
                    r = fn(lib, a, b)
                    out[f"{x},{y},{name}"] = (dname(r), values(r))
                except (RuntimeError, NotImplementedError) as e:
                    out[f"{x},{y},{name}"] = (type(e).__name__, str(e))
        return out

    assert_parity(scenario)


def test_bool_matrix_products_and_subtraction():
    def scenario(lib):
        t = lib.tensor([True, False])
        return [err(lambda: t @ t, '"dot" not implemented for \'Bool\''),
                err(lambda: t[None] @ t[:, None], '"addmm_impl_cpu_" not implemented'),
                err(lambda: 1 - t, "with a bool tensor is not supported"),
                err(lambda: lib.tensor([1.5]) - True, "with a bool tensor is not supported"),
                err(lambda: lib.rsub(t, True), "with two bool tensors is not supported"),
                err(lambda: True ** t, '"pow" not implemented for \'Bool\''),
                values(t ** True), dname(t ** True), dname(t % 2), dname(2 ** t)]

    assert_parity(scenario)


@pytest.mark.parametrize("form", ["dim", "zero_dim"])
def test_binary_promotion_python_numbers(form):
    """A tensor of each dtype with a Python bool / int / float on either side: a number never
    raises the dtype within its category (``int8 + 2`` is int8, ``float16 * 2.5`` float16);
    a higher category gives the default dtype (``int8 + 2.5`` is float32)."""
    def scenario(lib):
        out = {}
        for x in NAMES:
            for sname, s in SCALARS.items():
                a = _operand(lib, x, form)
                r, q = a + s, s * a
                out[f"{x},{sname}"] = (dname(r), dname(q), dname(lib.result_type(a, s)),
                                       dname(lib.result_type(s, a)), values(r), values(q))
        out["numbers"] = [dname(lib.result_type(u, v)) for u, v in
                          itertools.product(SCALARS.values(), SCALARS.values())]
        return out

    assert_parity(scenario)


def test_promotion_follows_default_dtype():
    """An integer tensor with a Python float computes in the default dtype."""
    def scenario(lib):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            return [dname(sample(lib, "int8") * 0.5), dname(lib.result_type(3, 0.5)),
                    dname(sample(lib, "float16") * 0.5), lib.finfo().dtype, lib.finfo().bits]
        finally:
            lib.set_default_dtype(old)

    assert_parity(scenario)


def test_promotion_errors():
    def scenario(lib):
        t = lib.ones(2)
        return [err(lambda: lib.promote_types(lib.float32, 3), "promote_types()",
                    "argument 'type2' (position 2) must be"),
                err(lambda: lib.promote_types(1, lib.float32), "argument 'type1' (position 1)"),
                err(lambda: lib.can_cast(lib.float32, 1), "can_cast()",
                    "argument 'to' (position 2) must be"),
                err(lambda: lib.result_type(t, "a"), "result_type() received an invalid "
                    "combination of arguments - got (Tensor, str)")]

    assert_parity(scenario)


# -------------------------------------------------------------------------- finfo / iinfo
FLOATS = [n for n in NAMES if n.startswith(("float", "bfloat"))]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def test_finfo_iinfo():
    def scenario(lib):
        out = {}
        for n in FLOATS:
            f = lib.finfo(getattr(lib, n))
            out[n] = (f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution,
                      f.dtype, repr(f), type(f.eps).__name__, f == lib.finfo(getattr(lib, n)))
        for n in INTS:
            i = lib.iinfo(getattr(lib, n))
            out[n] = (i.bits, i.max, i.min, i.dtype, repr(i), type(i.max).__name__)
        f = lib.finfo()
        out["default"] = (f.dtype, f.eps)
        return out

    a, b = assert_parity(scenario, rtol=0, atol=0)
    assert a["float32"][2] == b["float32"][2]  # (exact, not within the float tolerance)


def test_finfo_iinfo_errors():
    def scenario(lib):
        return [err(lambda: lib.iinfo(lib.float32), "iinfo() requires an integer input type"),
                err(lambda: lib.finfo(lib.int32), "finfo() requires a floating point input"),
                err(lambda: lib.iinfo(lib.bool), "bool is not supported by"),
                err(lambda: lib.finfo("float32"), "finfo(): argument 'type' (position 1) must "
                    "be")]

    assert_parity(scenario)


# --------------------------------------------------------------------------- Tensor.type()
def test_tensor_type_strings():
    """Deliberate difference: ``t.type()`` names the library, ``'minigrad.FloatTensor'`` where
    PyTorch says ``'torch.FloatTensor'`` (as dtypes print ``minigrad.float32``); the part after
    the dot is PyTorch's."""
    def scenario(lib):
        return {n: sample(lib, n).type() for n in NAMES}

    a, b = run_both(scenario)
    assert all(v.startswith("minigrad.") for v in a.values())
    assert {k: v.replace("minigrad.", "torch.") for k, v in a.items()} == b


def test_tensor_type_conversion():
    def scenario(lib):
        x = lib.tensor([1.5, 2.25, 3.0], requires_grad=True)  # (uint8: no negatives)
        out = {"same_dtype": x.type(lib.float32) is x,
               "same_name": x.type("torch.FloatTensor") is x,
               "keyword": dname(x.type(dtype=lib.float64)),
               "non_blocking": dname(x.type(lib.float16, non_blocking=True))}
        for n in NAMES:
            legacy = sample(lib, n).type().split(".", 1)[1]
            y = x.type("torch." + legacy)
            z = x.type(getattr(lib, n))
            out[n] = (dname(y), dname(z), values(y), y.requires_grad,
                      type(y.grad_fn).__name__ if y.grad_fn else None)
        out["errors"] = [err(lambda: x.type("torch.Foo"), "invalid type: 'torch.Foo'"),
                         err(lambda: x.type("FloatTensor"), "invalid type: 'FloatTensor'"),
                         err(lambda: x.type(3), "dtype must be a type, str, or dtype object")]
        return out

    assert_parity(scenario)


def test_minigrad_type_names_accepted():
    """``t.type('minigrad.HalfTensor')``, the name minigrad prints, converts as PyTorch's
    ``'torch.HalfTensor'`` does (compared with torch's result)."""
    import torch

    import minigrad

    x = np.array([1.5, 2.0], np.float32)
    ours = minigrad.tensor(x).type("minigrad.HalfTensor")
    theirs = torch.tensor(x).type("torch.HalfTensor")
    assert dname(ours) == dname(theirs) and np.array_equal(values(ours), values(theirs))


# ---------------------------------------------------------------------- conversion methods
CONVERSIONS = ["half", "bfloat16", "float", "double", "int", "short", "byte", "char", "long",
               "bool"]
if not HAVE_ML_DTYPES:
    CONVERSIONS.remove("bfloat16")


def test_conversion_methods_and_grads(device):
    """Each conversion method: dtype, values, ToCopyBackward0 for a floating result (none for an
    integer one, which does not require grad), and the gradient cast back to float32."""
    def scenario(lib, device):
        # (no negatives: a negative float cast to uint8 is undefined in C, so in PyTorch)
        x = lib.tensor([1.5, 2.75, 3.125, 0.0], device=device, requires_grad=True)
        w = lib.tensor([1.0, 2.0, -3.0, 0.5], device=device)
        out = {}
        for m in CONVERSIONS:
            y = getattr(x, m)()
            entry = [dname(y), values(y), y.requires_grad,
                     type(y.grad_fn).__name__ if y.grad_fn else None,
                     getattr(y.detach(), m)() is not None]
            if y.requires_grad:
                x.grad = None
                (y * w.to(y.dtype)).sum().backward()
                entry += [dname(x.grad), values(x.grad)]
                if y.grad_fn is not None:  # (None for x.float(): x itself)
                    entry.append([type(n).__name__ for n, _ in y.grad_fn.next_functions])
            out[m] = entry
        d = x.detach()
        out["same"] = [d.float() is d, d.double().double() is not d, d.half().half().dtype ==
                       lib.float16]
        return out

    assert_parity(scenario, device=device)


def test_conversion_methods_spelled_out():
    """The conversion methods and ``is_signed`` called by name (the table above looks them up
    with getattr)."""
    def scenario(lib):
        x = lib.tensor([1.5, 2.75, 100.0])  # (in range of every dtype: no UB casts)
        outs = [x.half(), x.float(), x.double(), x.int(), x.short(), x.char(), x.byte(),
                x.long(), x.bool()]
        if HAVE_ML_DTYPES:
            outs.append(x.bfloat16())
        neg = lib.tensor([-2.75, -0.5, 7.9])  # (signed targets truncate toward zero)
        outs += [neg.int(), neg.short(), neg.char(), neg.long()]
        return [(dname(y), values(y), y.is_signed(), y.element_size(),
                 y.type()[len(y.type().split(".")[0]):]) for y in outs]

    assert_parity(scenario)


def test_conversion_grad_of_half_chain(device):
    """float32 -> float16 -> float64: each step is a ToCopyBackward0 and the gradient of the
    leaf arrives in float32, rounded through float16 as in PyTorch."""
    def scenario(lib, device):
        x = lib.tensor([0.1, 1.0 / 3.0, 1e-4, 70000.0], device=device, requires_grad=True)
        y = x.half().double()
        (y * y).sum().backward()
        return [values(y), dname(x.grad), values(x.grad)]

    assert_parity(scenario, device=device, rtol=0, atol=0)


def test_module_half_and_bfloat16():
    def scenario(lib):
        lib.manual_seed(0)
        out = {}
        names = ["half", "bfloat16"] if HAVE_ML_DTYPES else ["half"]
        for m in names:
            net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))
            w = np.linspace(-1, 1, 12).reshape(3, 4)
            with lib.no_grad():
                net[0].weight.copy_(lib.tensor(w))
                net[0].bias.fill_(0.25)
                net[2].weight.fill_(0.5)
                net[2].bias.fill_(-0.125)
            r = getattr(net, m)()
            x = lib.tensor(np.linspace(-2, 2, 8).reshape(2, 4).tolist(), dtype=net[0].weight.dtype)
            y = net(x)
            y.sum().backward()
            out[m] = [r is net, [dname(p) for p in net.parameters()],
                      [type(p).__name__ for p in net.parameters()], dname(y), values(y),
                      [values(p.grad) for p in net.parameters()]]
        return out

    assert_parity(scenario, rtol=1e-2, atol=1e-2)


# ----------------------------------------------------------------------- float16 arithmetic
F16_OPS = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a.abs() ** 1.5,
    "exp": lambda lib, a, b: a.exp(),
    "log": lambda lib, a, b: b.abs().log(),
    "tanh": lambda lib, a, b: a.tanh(),
    "sigmoid": lambda lib, a, b: a.sigmoid(),
    "relu": lambda lib, a, b: lib.relu(a),
    "sqrt": lambda lib, a, b: b.abs().sqrt(),
    "sum": lambda lib, a, b: a.sum(),
    "mean_dim": lambda lib, a, b: a.mean(1),
    "matmul": lambda lib, a, b: a @ b.t(),
    "softmax": lambda lib, a, b: a.softmax(-1),
    "max": lambda lib, a, b: a.max(1).values,
}


@pytest.mark.parametrize("dtype", ["float16"] + (["bfloat16"] if HAVE_ML_DTYPES else []))
@pytest.mark.parametrize("op", list(F16_OPS))
def test_half_precision_arithmetic(op, dtype):
    """Values and gradients of everyday ops in float16/bfloat16. PyTorch's CPU kernels compute
    some of these in float32 and round once (sums, matmul, softmax), NumPy rounds per step:
    compared within the dtype's resolution (finfo.eps relative, a few eps absolute)."""
    rng = np.random.default_rng(0)
    a_arr, b_arr = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)) + 2.0

    def scenario(lib):
        dt = getattr(lib, dtype)
        a = lib.tensor(a_arr.tolist(), dtype=dt, requires_grad=True)
        b = lib.tensor(b_arr.tolist(), dtype=dt, requires_grad=True)
        out = F16_OPS[op](lib, a, b)
        out.sum().backward() if out.ndim else out.backward()
        return [dname(out), values(out), type(out.grad_fn).__name__,
                None if a.grad is None else (dname(a.grad), values(a.grad)),
                None if b.grad is None else (dname(b.grad), values(b.grad))]

    eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    assert_parity(scenario, rtol=4 * eps, atol=4 * eps)


# ---------------------------------------------------------------------------------- errors
def test_integer_tensors_cannot_require_grad():
    def make(lib, name):
        return err(lambda: lib.tensor([1, 2], dtype=getattr(lib, name), requires_grad=True),
                   "Only Tensors of floating point and complex dtype can require gradients")

    def scenario(lib):
        msg = "floating point"
        return [make(lib, n) for n in NAMES if not n.startswith(("float", "bfloat"))] + [
            err(lambda: sample(lib, "int8").requires_grad_(), msg),
            err(lambda: setattr(sample(lib, "uint8"), "requires_grad", True), msg)]

    assert_parity(scenario)


def test_integer_division_and_inplace_cast_errors():
    def scenario(lib):
        out = {}
        for n in INTS:
            a, b = sample(lib, n), sample(lib, n, (3,)).flip(0)
            out[n] = (dname(a / b), values(a / b), dname(a // b), values(a // b),
                      dname(a / 2), dname(lib.div(a, b, rounding_mode="floor")))
        long_t = sample(lib, "int64")
        out["errors"] = [
            err(lambda: long_t.div_(2), "result type Float can't be cast to the desired output "
                "type Long"),
            err(lambda: sample(lib, "int8").add_(1.5), "result type Float can't be cast to "
                "the desired output type Char"),
            err(lambda: sample(lib, "int16").mul_(lib.ones(3, dtype=lib.float64)),
                "result type Double can't be cast to the desired output type Short"),
            err(lambda: sample(lib, "bool").add_(sample(lib, "int32")),
                "result type Int can't be cast to the desired output type Bool"),
            err(lambda: sample(lib, "uint8").mul_(sample(lib, "float16")),
                "result type Half can't be cast to the desired output type Byte"),
            # clamp_ with a number names the output type in C++, with a tensor as the rest
            err(lambda: long_t.clamp_(0.5), "result type Float can't be cast to the desired "
                "output type long int"),
            err(lambda: sample(lib, "int8").clamp_(max=2.5), "output type signed char"),
            err(lambda: sample(lib, "bool").clamp_(1), "result type Long can't be cast to the "
                "desired output type bool"),
            err(lambda: sample(lib, "int16").clamp_(lib.tensor(0.5)), "result type Float "
                "can't be cast to the desired output type Short")]
        # allowed: a wider result of the same category is cast back into the tensor
        t = sample(lib, "int8")
        t.add_(sample(lib, "int64") * 50)
        h = sample(lib, "float16")
        h.mul_(lib.ones(3, dtype=lib.float64) / 3)
        out["cast_back"] = (dname(t), values(t), dname(h), values(h))
        return out

    assert_parity(scenario)


def test_factories_and_repr_of_new_dtypes():
    def scenario(lib):
        out = {}
        for n in NAMES:
            dt = getattr(lib, n)
            z = lib.zeros(2, 3, dtype=dt)
            out[n] = [dname(z), dname(lib.ones_like(z)), dname(lib.full((2,), 1, dtype=dt)),
                      dname(lib.arange(4, dtype=dt)) if n != "bool" else None,  # (no bool
                      repr(sample(lib, n)).replace("torch.", "minigrad."),  # arange in torch)
                      values(lib.tensor([1, 0, 1], dtype=dt))]
        return out

    assert_parity(scenario)


@pytest.mark.parametrize("dtype", ["float16"] + (["bfloat16"] if HAVE_ML_DTYPES else []))
def test_long_reductions_accumulate_in_float32(dtype):
    """Sums and means of 10,000 elements, and the softmax of such a row: PyTorch accumulates
    float16/bfloat16 in float32 and rounds once (a bfloat16 accumulator would stop growing at
    256), and so does minigrad; gradients through the broadcast sum too."""
    arr = np.random.default_rng(1).random(10_000)

    def scenario(lib):
        x = lib.tensor(arr.tolist(), dtype=getattr(lib, dtype), requires_grad=True)
        rows = x.reshape(10, 1000)
        F = lib.nn.functional
        zeros = lib.zeros(1000, dtype=lib.long)
        out = [values(x.sum()), values(x.mean()), values(rows.sum(1)), values(rows.mean(0)),
               values(x.reshape(1, -1).softmax(-1).sum()),
               values(x.reshape(1, -1).log_softmax(-1)[0, :5]),
               values(x.var()), values(x.std()), values(lib.var_mean(rows, 1)[0]),
               values(x.norm()), values(x.norm(p=1)), values(x.cumsum(0)[-1]),
               values(lib.logsumexp(x, 0)),
               values(F.nll_loss(x.reshape(1000, 10), zeros, reduction="sum")),
               values(F.binary_cross_entropy(x.clamp(0.01, 0.99), lib.ones_like(x))),
               values(F.binary_cross_entropy_with_logits(x, lib.ones_like(x)))]
        (x.expand(300, 10_000) * 1).sum().backward()
        return out + [dname(x.grad), values(x.grad[:5])]

    eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    assert_parity(scenario, rtol=2 * eps, atol=2 * eps)


@pytest.mark.parametrize("dtype", ["float16"] + (["bfloat16"] if HAVE_ML_DTYPES else []))
def test_half_precision_state_dict_from_pytorch(dtype):
    """A PyTorch model's half-precision state dict loads into the minigrad twin (bfloat16
    through its bit patterns: torch gives no NumPy array for it), and the two forwards agree."""
    import torch

    import minigrad

    torch.manual_seed(0)
    method = {"float16": "half", "bfloat16": "bfloat16"}[dtype]
    theirs = getattr(torch.nn.Linear(4, 3), method)()
    ours = getattr(minigrad.nn.Linear(4, 3), method)()
    assert str(ours.load_state_dict(theirs.state_dict())) == "<All keys matched successfully>"
    assert dname(ours.weight) == dtype
    assert np.array_equal(values(ours.weight), values(theirs.weight))
    x = np.linspace(-1, 1, 8).reshape(2, 4)
    y_ours = ours(minigrad.tensor(x.tolist(), dtype=getattr(minigrad, dtype)))
    y_theirs = theirs(torch.tensor(x.tolist(), dtype=getattr(torch, dtype)))
    compare(values(y_ours), values(y_theirs), rtol=1e-2, atol=1e-2)
    as_float = minigrad.nn.Linear(4, 3)  # (and into a float32 model: cast on load)
    as_float.load_state_dict(theirs.state_dict())
    assert dname(as_float.weight) == "float32"
    assert np.array_equal(values(as_float.weight), values(theirs.weight))
