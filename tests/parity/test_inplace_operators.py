"""Parity of the in-place audit of issue 19 (item 3): every in-place method PyTorch's Tensor has
for an op minigrad supports exists; Python's augmented assignments (``//=``, ``**=``, ``&=``,
``|=``, ``^=``, ``%=``) modify the tensor itself (same object, ``_version`` + 1, history rebased,
the leaf error) instead of rebinding a new one; ``floor_divide`` and its
``torch::autograd::NotImplemented`` node; the comparison aliases ``greater`` ... and their
in-place forms; the in-place dtype check (no float into an integer tensor, no number into a
bool tensor).
"""

import numpy as np
import pytest

import minigrad
from minigrad.parity import capture_error, compare, graph_trace, run_both, to_numpy

A = np.array([[0.5, 1.5, -2.0], [1.0, 0.25, 3.0]], dtype=np.float32)
I = np.array([[1, 2, 3], [4, 5, 6]])


def test_every_inplace_method_of_a_supported_op_exists():
    """``dir(torch.Tensor)``: each ``name_`` whose ``name`` minigrad has is in minigrad too."""
    import torch

    have = set(dir(minigrad.Tensor))
    missing = sorted(n for n in dir(torch.Tensor)
                     if n.endswith("_") and not n.startswith("_") and n[:-1] in have
                     and n not in have)
    assert missing == []


def test_every_augmented_assignment_of_a_supported_operator_exists():
    import torch

    have = set(dir(minigrad.Tensor))
    for name in [n for n in dir(torch.Tensor) if n.startswith("__i") and n.endswith("__")]:
        base = "__" + name[3:]
        if name in ("__idiv__", "__init__", "__int__", "__index__", "__invert__", "__iter__"):
            continue  # (Python 2's /=, and dunders that are not augmented assignments)
        if base in have:
            assert name in have, name


def _state(L, t):
    return {"value": to_numpy(t), "dtype": str(t.dtype).split(".")[-1], "version": t._version,
            "grad_fn": None if t.grad_fn is None else t.grad_fn.name(),
            "graph": graph_trace(t) if t.grad_fn is not None else None}


def _ifloordiv(x, y):
    x //= y
    return x


def _ipow(x, y):
    x **= y
    return x


def _iand(x, y):
    x &= y
    return x


def _ior(x, y):
    x |= y
    return x


def _ixor(x, y):
    x ^= y
    return x


def _imod(x, y):
    x %= y
    return x


OPS = {"ifloordiv": _ifloordiv, "ipow": _ipow, "iand": _iand, "ior": _ior, "ixor": _ixor,
       "imod": _imod}
SELVES = {
    "float_nonleaf": lambda L: L.tensor(A, requires_grad=True) * 1,
    "int": lambda L: L.tensor(I),
    "bool": lambda L: L.tensor([True, False, True]),
}
OTHERS = {
    "int": lambda L: 2,
    "float": lambda L: 2.0,
    "float_tensor": lambda L: L.tensor([1.0, 2.0, 3.0]),
    "int_tensor": lambda L: L.tensor([1, 2, 3]),
    "bool": lambda L: True,
}


@pytest.mark.parametrize("other", list(OTHERS))
@pytest.mark.parametrize("self_kind", list(SELVES))
@pytest.mark.parametrize("op", list(OPS))
def test_augmented_assignment(op, self_kind, other):
    def scenario(L):
        x = SELVES[self_kind](L)
        before = x
        err = capture_error(lambda: OPS[op](x, OTHERS[other](L)))
        if err is not None:
            return err, x._version
        return before is x, _state(L, x)

    compare(*run_both(scenario))


@pytest.mark.parametrize("op", list(OPS))
def test_augmented_assignment_on_a_leaf_requiring_grad(op):
    def scenario(L):
        x = L.tensor(A, requires_grad=True)
        return capture_error(lambda: OPS[op](x, 2))

    a, b = run_both(scenario)
    assert b is not None and a[0] == b[0] and "leaf Variable" in a[1]


@pytest.mark.parametrize("op", ["ipow", "imod"])
def test_augmented_assignment_gradients(op):
    def scenario(L):
        w = L.tensor(A, requires_grad=True)
        e = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = w * 1
        OPS[op](h, e)
        (h * L.tensor(A)).sum().backward()
        return _state(L, h), to_numpy(w.grad), to_numpy(e.grad)

    compare(*run_both(scenario))


def test_augmented_assignment_on_a_view_rebases_its_base():
    def scenario(L):
        w = L.tensor(A, requires_grad=True)
        h = w * 1
        v = h[0]
        v **= 2
        h.sum().backward()
        return _state(L, h), _state(L, v), to_numpy(w.grad)

    compare(*run_both(scenario))


# ------------------------------------------------------------------ floor_divide
FLOOR = {
    "tensor_number": lambda L, x: x // 2,
    "tensor_tensor": lambda L, x: x // L.tensor([1.0, 2.0, 0.5], requires_grad=True),
    "number_tensor": lambda L, x: 5 // x,
    "function": lambda L, x: L.floor_divide(x, -0.75),
    "method": lambda L, x: x.floor_divide(L.tensor([[2.0], [3.0]])),
    "inplace_method": lambda L, x: (x * 1).floor_divide_(2),
    "int": lambda L, x: L.floor_divide(L.tensor([5, -5, 7]), L.tensor([2, 2, -3])),
    "int_by_zero": lambda L, x: L.floor_divide(L.tensor([5, -5]), 0),
    "float_by_zero": lambda L, x: L.floor_divide(x, 0.0),
    "bool": lambda L, x: L.floor_divide(L.tensor([True]), L.tensor([True])),
    "noncontiguous": lambda L, x: L.floor_divide(x.t(), 0.5),
}


@pytest.mark.parametrize("case", list(FLOOR))
def test_floor_divide(case):
    def scenario(L):
        x = L.tensor(A, requires_grad=True)
        err = capture_error(lambda: FLOOR[case](L, x))
        if err is not None:
            return err
        y = FLOOR[case](L, x)
        trace = {"value": to_numpy(y), "dtype": str(y.dtype).split(".")[-1],
                 "stride": y.stride(),
                 "graph": graph_trace(y) if y.grad_fn is not None else None}
        if y.requires_grad:
            trace["backward"] = capture_error(lambda: y.sum().backward())
        return trace

    compare(*run_both(scenario))


# ------------------------------------------------------------------ comparison aliases
ALIASES = ["greater", "greater_equal", "less", "less_equal", "not_equal"]


@pytest.mark.parametrize("name", ALIASES)
def test_comparison_aliases(name):
    def scenario(L):
        h = L.tensor(A, requires_grad=True) * 1
        f, m = getattr(L, name)(h, 1.0), getattr(h, name)(L.tensor([1.0, 2.0, 3.0]))
        r = getattr(h, name + "_")(0.5)
        leaf = capture_error(lambda: getattr(L.tensor(A, requires_grad=True), name + "_")(1.0))
        return (to_numpy(f), str(f.dtype), f.requires_grad, to_numpy(m), r is h, _state(L, h),
                leaf[0], "leaf Variable" in leaf[1])

    a, b = run_both(scenario)
    compare([a[0], a[2], a[3], a[4], a[5], a[6], a[7]], [b[0], b[2], b[3], b[4], b[5], b[6], b[7]])
    assert a[1].split(".")[-1] == b[1].split(".")[-1] == "bool"


# ------------------------------------------------------------------ the in-place dtype check
CASTS = {
    "bool_add_int": lambda L: L.tensor([True, False]).add_(1),
    "bool_mul_bool": lambda L: L.tensor([True, False]).mul_(L.tensor([True, True])),
    "int_add_bool": lambda L: L.tensor([1, 2]).add_(True),
    "int_add_float": lambda L: L.tensor([1, 2]).add_(0.5),
    "int32_add_int64": lambda L: L.tensor([1, 2], dtype=L.int32).add_(L.tensor([3, 4])),
    "float_add_float64": lambda L: L.tensor([1.0, 2.0]).add_(L.tensor([3.0], dtype=L.float64)),
    "bool_eq_": lambda L: L.tensor([True, False]).eq_(1),
}


@pytest.mark.parametrize("case", list(CASTS))
def test_inplace_dtype_check(case):
    def scenario(L):
        err = capture_error(lambda: CASTS[case](L))
        return err if err is not None else to_numpy(CASTS[case](L))

    compare(*run_both(scenario))


def test_comparison_alias_methods_written_out():
    """The alias methods by name (the table above reaches them through ``getattr``)."""
    def scenario(L):
        h = L.tensor(A, requires_grad=True) * 1
        other = L.tensor([1.0, 2.0, 3.0])
        outs = [h.greater(other), h.greater_equal(1.5), h.less(other), h.less_equal(1.5),
                h.not_equal(other)]
        ins = [L.tensor(A) * 1 for _ in range(5)]
        ins[0].greater_(other)
        ins[1].greater_equal_(1.5)
        ins[2].less_(other)
        ins[3].less_equal_(1.5)
        ins[4].not_equal_(other)
        return [to_numpy(t) for t in outs] + [_state(L, t) for t in ins]

    compare(*run_both(scenario))
