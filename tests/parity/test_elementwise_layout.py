"""Parity of the layout (strides) of elementwise results and of the gradients they lead to.

PyTorch's TensorIterator lays out a new elementwise result after its operands' strides: when
they all have one shape and are all contiguous (or all channels-last, or all dense with the
same strides) it takes that layout; otherwise it orders the dims by the strides of the
*first* operand that tells two dims apart (a broadcast dim, stride 0, tells nothing), after
converting an operand of another dtype as ``.to()`` would. NumPy's ``order="K"`` falls back to
row-major where the operands disagree, so ``x.t() - x`` was row-major in minigrad (fuzz
finding, issue 17). Backward formulas are built from these ops, so the layout of ``.grad``
(and AccumulateGrad's choice between stealing a gradient and copying it, seen in
``.grad._version``) follows.

Each scenario builds the same layouts in both libraries from NumPy arrays and returns
``stride()``, ``is_contiguous()``, values and, where a leaf requires grad, its gradient's
values, strides and ``_version``.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err


def laid(lib, arr, how, device="cpu"):
    """``arr`` (float or int NumPy array) as a tensor of layout ``how``, same shape:
    ``c`` contiguous; ``t`` the last two dims transposed in memory; ``cl`` a 4-D tensor in
    channels-last order (a permute of an NHWC array); ``slice`` every other element of a
    twice-as-wide array (not dense); ``expand`` the first row expanded (stride 0). The torch
    side is moved to ``device`` (``.to`` keeps the strides)."""
    t = _laid(lib, arr, how)
    return t.to(device) if lib.__name__ == "torch" else t


def _laid(lib, arr, how):
    if how == "c":
        return lib.tensor(arr)
    if how == "t":
        return lib.tensor(np.ascontiguousarray(np.swapaxes(arr, -1, -2))).transpose(-1, -2)
    if how == "cl":
        return lib.tensor(np.ascontiguousarray(arr.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
    if how == "slice":
        return lib.tensor(np.repeat(arr, 2, axis=-1))[..., ::2]
    if how == "expand":
        return lib.tensor(np.ascontiguousarray(arr[:1])).expand(*arr.shape)
    raise ValueError(how)


def leaf(lib, arr, how, device="cpu"):
    """A leaf with layout ``how`` (``detach`` keeps the strides); float leaves require grad."""
    t = laid(lib, arr, how, device).detach()
    if t.dtype.is_floating_point:
        t.requires_grad_()
    return t


def meta(t):
    """What a result's layout decides: strides, contiguity; and its values and dtype."""
    return t.stride(), t.is_contiguous(), to_numpy(t), str(t.dtype).split(".")[-1]


def grads(leaves):
    """Each leaf's gradient: values, strides, ``_version`` (None where it has none)."""
    return [
        None if x.grad is None else (to_numpy(x.grad), x.grad.stride(), x.grad._version)
        for x in leaves
    ]


def data(shape, seed, dtype="float32", kind="randn"):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return rng.integers(1, 5, size=shape).astype("int64")
    if kind == "pos":
        return rng.uniform(0.5, 2.0, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


BINARY = {
    "add": lambda L, a, b: a + b,
    "sub": lambda L, a, b: a - b,
    "sub_alpha": lambda L, a, b: L.sub(a, b, alpha=2),
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b,
    "pow": lambda L, a, b: a.abs() ** b,
    "maximum": lambda L, a, b: L.maximum(a, b),
    "minimum": lambda L, a, b: L.minimum(a, b),
    "atan2": lambda L, a, b: L.atan2(a, b),
    "hypot": lambda L, a, b: L.hypot(a, b),
    "fmax": lambda L, a, b: L.fmax(a, b),
    "fmod": lambda L, a, b: L.fmod(a, b),
    "remainder": lambda L, a, b: L.remainder(a, b),
    "floor_divide": lambda L, a, b: L.floor_divide(a, b),
    "div_floor": lambda L, a, b: L.div(a, b, rounding_mode="floor"),
    "eq": lambda L, a, b: a == b,
    "lt": lambda L, a, b: a < b,
    "bitwise_and": lambda L, a, b: (a > 0) & (b > 0),
    "logical_and": lambda L, a, b: L.logical_and(a, b),
    "tanh_of_product": lambda L, a, b: (a * b).tanh(),  # (tanh_backward(grad, result))
    "sigmoid_of_product": lambda L, a, b: (a * b).sigmoid(),
}

# (first operand's layout, second's, second's shape or None for the first's)
PAIRS = [
    ("t", "c", None),
    ("c", "t", None),
    ("t", "t", None),
    ("t", "slice", None),
    ("slice", "t", None),
    ("c", "expand", None),
    ("expand", "t", None),
    ("t", "c", (4,)),
    ("t", "c", (3, 1)),
    ("c", "t", ()),
    ("t", "c", ()),
]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}-{p[2]}")
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_layout_and_grads(op, pair, device):
    """A binary op on operands of different layouts (transposed, not dense, expanded,
    broadcast, 0-dim): the result's strides and the gradients' strides and versions, with
    ``sum().backward()`` (an expanded upstream gradient: the other factor's layout wins)."""
    first, second, shape2 = pair

    def scenario(lib, device):
        a = leaf(lib, data((3, 4), 1), first, device)
        arr2 = data((3, 4) if shape2 is None else shape2, 2, kind="pos")
        b = leaf(lib, arr2, second if shape2 is None or len(shape2) == 2 else "c", device)
        out = BINARY[op](lib, a, b)
        error = err(lambda: out.sum().backward()) if out.requires_grad else None
        return meta(out), grads([a, b]), error  # (floor_divide: no derivative)

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "atan2"])
@pytest.mark.parametrize("root", ["c", "t"])
def test_backward_into_transposed_leaves(op, root, device):
    """``z = op(x, y)`` with x a transposed leaf and y a contiguous one, backward from an
    explicit gradient of either layout: the formulas' products take the gradient's layout or
    the other operand's, and AccumulateGrad steals the result when it matches the leaf's
    strides, else copies it into the leaf's layout (``.grad._version``, strides)."""

    def scenario(lib, device):
        x = leaf(lib, data((3, 4), 1, kind="pos"), "t", device)
        y = leaf(lib, data((3, 4), 2, kind="pos"), "c", device)
        z = BINARY[op](lib, x, y)
        z.backward(laid(lib, data((3, 4), 3), root, device))
        z2 = BINARY[op](lib, y, x)  # (the other order: y's layout first)
        z2.backward(laid(lib, data((3, 4), 4), root, device))
        return meta(z), meta(z2), grads([x, y])

    assert_parity(scenario, device=device)


@pytest.mark.parametrize(
    "dtypes", [("float32", "float64"), ("int64", "float32"), ("float64", "int64")], ids="-".join
)
@pytest.mark.parametrize(
    "layouts",
    [("t", "c"), ("c", "t"), ("expand", "t"), ("t", "expand"), ("slice", "t")],
    ids="-".join,
)
@pytest.mark.parametrize("op", ["add", "mul", "div", "eq", "maximum"])
def test_type_promotion_layout(op, layouts, dtypes, device):
    """Operands of two dtypes: the one converted to the common dtype is first made dense
    (``.to()`` keeps a dense operand's strides; an expanded one gets dense strides in its own
    order, and then it tells its dims apart)."""

    def scenario(lib, device):
        a = laid(lib, data((3, 4), 1, dtypes[0]), layouts[0], device)
        b = laid(lib, data((3, 4), 2, dtypes[1], kind="pos"), layouts[1], device)
        return meta(BINARY[op](lib, a, b))

    assert_parity(scenario, device=device)


@pytest.mark.parametrize(
    "layouts",
    [("cl", "c"), ("c", "cl"), ("cl", "cl"), ("cl", "t"), ("t", "cl"), ("cl", "expand")],
    ids="-".join,
)
@pytest.mark.parametrize("op", ["add", "mul", "div", "lt"])
def test_channels_last_4d(op, layouts, device):
    """4-D operands in channels-last order (a permute, as minigrad has no channels_last
    memory format): all channels-last gives a channels-last result; mixed with another layout,
    the first operand that orders the dims decides."""

    def scenario(lib, device):
        a = leaf(lib, data((2, 3, 4, 5), 1), layouts[0], device)
        b = leaf(lib, data((2, 3, 4, 5), 2, kind="pos"), layouts[1], device)
        out = BINARY[op](lib, a, b)
        if out.requires_grad:
            out.sum().backward()
        return meta(out), grads([a, b])

    assert_parity(scenario, device=device)


TERNARY = {
    "where": lambda L, c, a, b: L.where(c > 0, a, b),
    "addcmul": lambda L, a, b, c: L.addcmul(a, b, c, value=0.5),
    "addcdiv": lambda L, a, b, c: L.addcdiv(a, b, c, value=2),
    "lerp_tensor": lambda L, a, b, c: L.lerp(a, b, c),
    "lerp_number": lambda L, a, b, c: L.lerp(a, b, 0.3) + c,
    "clamp_tensors": lambda L, a, b, c: L.clamp(a, b - 1, c + 1),
}


@pytest.mark.parametrize(
    "layouts",
    [
        ("c", "t", "t"),
        ("t", "c", "c"),
        ("c", "c", "t"),
        ("expand", "t", "c"),
        ("expand", "c", "t"),
        ("slice", "t", "c"),
    ],
    ids="-".join,
)
@pytest.mark.parametrize("op", list(TERNARY))
def test_ternary_layout_and_grads(op, layouts, device):
    """Three operands (``where``'s condition first, never converted): the first that orders
    the dims decides the result's layout; gradients as PyTorch's."""

    def scenario(lib, device):
        ts = [
            leaf(lib, data((3, 4), k + 1, kind="pos"), how, device) for k, how in enumerate(layouts)
        ]
        out = TERNARY[op](lib, *ts)
        out.sum().backward()
        return meta(out), grads(ts)

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "atan2_", "addcmul_", "lerp_"])
@pytest.mark.parametrize("layouts", [("t", "c"), ("c", "t"), ("t", "expand")], ids="-".join)
def test_inplace_keeps_self_layout(op, layouts, device):
    """An in-place op writes into self, whose layout stays (whatever the other operand's);
    the gradients through it are PyTorch's, in values, strides and versions."""

    def scenario(lib, device):
        x = leaf(lib, data((3, 4), 1, kind="pos"), "c", device)
        y = leaf(lib, data((3, 4), 2, kind="pos"), layouts[1], device)
        h = x * 1 if layouts[0] == "c" else (x.t() * 1).t()  # (a non-leaf of that layout)
        if op in ("addcmul_", "lerp_"):
            getattr(h, op)(y, y)
        else:
            getattr(h, op)(y)
        h.sum().backward()
        return meta(h), h._version, grads([x, y])

    assert_parity(scenario, device=device)


def test_size_one_and_zero_dim_operands(device):
    """Dims of size 1 and 0-dim operands: the strides that matter (those of dims of size
    more than 1) and contiguity follow the first operand that orders the dims. (The stride of
    a size-1 dim is not compared: PyTorch derives it from its iteration order, which nothing
    observable depends on; minigrad's may differ.)"""

    def layout(t):
        return [s for n, s in zip(t.shape, t.stride()) if n != 1], t.is_contiguous()

    def scenario(lib, device):
        x = laid(lib, data((3, 1, 4), 1), "t", device)  # (3, 4, 1) in memory
        y = lib.tensor(data((3, 1, 4), 2)).to(device)
        p = laid(lib, data((3, 4), 3), "t", device)[:, None]  # (3, 1, 4), transposed
        s = lib.tensor(np.float32(2.0)).to(device)
        outs = [x + y, y + x, p * y, y * p, p + s, s * p, p - y[:1], lib.where(y > 0, p, s)]
        return [(layout(o), to_numpy(o)) for o in outs]

    assert_parity(scenario, device=device)


def test_fuzz_finding_transposed_minus_contiguous(device):
    """Issue 17's finding: ``x.t() - x`` for a square x is laid out as ``x.t()`` (strides
    (1, 2)), and so is a view of it that needs those strides."""

    def scenario(lib, device):
        x = lib.tensor(data((2, 2), 1)).to(device)
        d = x.t() - x
        e = x - x.t()
        return meta(d), meta(e), to_numpy(d.t().reshape(4)), d.t().is_contiguous()

    assert_parity(scenario, device=device)


def test_sum_over_dims_is_row_major(device):
    """``sum`` (and ``mean``) over some dims gives a row-major result whatever the input's
    layout (NumPy's keeps the input's order): the reduction ``sum_to`` does in every broadcast
    backward."""

    def scenario(lib, device):
        x = leaf(lib, data((2, 3, 4), 1), "t", device).permute(2, 0, 1)  # (4, 2, 3)
        outs = [
            x.sum(1),
            x.sum(0, keepdim=True),
            x.sum((0, 2), keepdim=True),
            x.sum(-1),
            x.mean(0, keepdim=True),
            x.mean(-1),
        ]
        y = leaf(lib, data((1, 2, 3), 2), "c", device)
        (x * y).sum().backward()  # (y's gradient: a keepdim sum of a permuted product)
        return [meta(o) for o in outs], grads([x, y])

    assert_parity(scenario, device=device)


def test_create_graph_gradient_of_transposed_leaf(device):
    """Under ``create_graph`` AccumulateGrad copies the gradient into the leaf's layout (a
    transposed leaf gets a transposed ``.grad``), as PyTorch's ``clone_obey_contract``."""

    def scenario(lib, device):
        x = leaf(lib, data((3, 4), 1), "t", device)
        y = leaf(lib, data((3, 4), 2), "c", device)
        (x * y).sum().backward(create_graph=True)
        return grads([x, y]), x.grad.requires_grad

    assert_parity(scenario, device=device)


def test_logical_ops_convert_no_operand(device):
    """``logical_and/or/xor`` read each operand in its own dtype: an expanded float16
    operand stays expanded (it tells no dims apart) and the transposed int64 one decides."""

    def scenario(lib, device):
        a = laid(lib, np.ones((4, 3), np.float16), "expand", device)
        b = laid(lib, np.arange(12).reshape(4, 3), "t", device)
        return [meta(f(a, b)) for f in (lib.logical_and, lib.logical_or, lib.logical_xor)]

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("op", ["lerp_tensor", "addcmul", "addcdiv"])
def test_ternary_one_iterator_over_partly_expanded_operands(op, device):
    """``lerp``/``addcmul``/``addcdiv`` are one TensorIterator over their three operands in
    PyTorch, laid out once: an operand expanded in some dims tells only the others apart, and
    the next operand decides the rest (minigrad computes them as a chain of ops, whose first
    intermediate result would decide everything)."""

    def scenario(lib, device):
        rng = np.random.default_rng(0)
        base = [lib.tensor(rng.uniform(0.5, 2, s)) for s in [(2, 1, 1), (2, 2, 1), (4, 2, 3)]]
        if lib.__name__ == "torch":
            base = [t.to(device) for t in base]
        a, b, w = [t.requires_grad_() for t in base]
        out = TERNARY[op](lib, a.expand(2, 4, 3), b[:, :1].expand(2, 4, 3), w.permute(1, 0, 2))
        out2 = TERNARY[op](
            lib, a.expand(2, 2, 2), b.expand(2, 2, 2), w[:2, :2, :2].permute(1, 2, 0)
        )
        (out.sum() + out2.sum()).backward()
        return meta(out), meta(out2), grads([a, b, w])

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("other", ["float", "int", "0-dim float64", "0-dim int64"])
def test_tensor_and_number_layout(dtype, other, device):
    """A tensor with a number (or a 0-dim tensor): the tensor alone orders the dims, as it
    is, or as its dense copy when it is converted to the result's dtype (an expanded int
    tensor times 2.5 is laid out row-major, not in its expanded strides' order)."""

    def scenario(lib, device):
        base = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
        x = lib.tensor(np.ascontiguousarray(base[:, :1, :1]))
        if lib.__name__ == "torch":
            x = x.to(device)
        x = x.permute(2, 1, 0).expand(4, 3, 2)  # (strides (0, 0, 1): 1 in the last dim)
        p = laid(lib, base, "t", device).permute(2, 0, 1)
        o = {
            "float": 2.5,
            "int": 3,
            "0-dim float64": lib.tensor(2.0, dtype=lib.float64),
            "0-dim int64": lib.tensor(2),
        }[other]
        if lib.__name__ == "torch" and not isinstance(o, (int, float)):
            o = o.to(device)
        outs = []
        for t in (x, p):
            outs += [t * o, o + t, t / o, t == o, t > o]
            if dtype != "bool":
                outs.append(t - o)
        return [meta(z) for z in outs]

    assert_parity(scenario, device=device)
