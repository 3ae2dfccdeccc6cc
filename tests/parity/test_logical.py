"""Parity of ``logical_and`` / ``logical_or`` / ``logical_xor`` / ``logical_not`` and their
in-place forms (issue 19): bool results that never require grad, broadcasting, mixed dtypes,
layouts of non-contiguous inputs, empty tensors, errors; the in-place forms write 0/1 in
``self``'s dtype, bump ``_version`` (shared with views), and — ops without a derivative — pass
a leaf that requires grad and keep ``grad_fn`` as it was, as PyTorch does.
"""

import numpy as np
import pytest

from minigrad.parity import capture_error, compare, run_both, to_numpy

A = np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]], dtype=np.float32)
B = np.array([1.0, 0.0, 2.0], dtype=np.float32)
NAMES = ["logical_and", "logical_or", "logical_xor"]


def _result(t):
    return {"value": to_numpy(t), "dtype": str(t.dtype).split(".")[-1], "shape": list(t.shape),
            "stride": t.stride(), "requires_grad": t.requires_grad, "grad_fn": t.grad_fn}


CASES = {
    "float_float": lambda L, f: f(L.tensor(A), L.tensor(B)),
    "method": lambda L, f: getattr(L.tensor(A), f.__name__)(L.tensor([0, 2, 0])),
    "int_float": lambda L, f: f(L.tensor([0, 2, 0]), L.tensor(B)),
    "bool_int": lambda L, f: f(L.tensor([True, False, True]), L.tensor([[0], [5]])),
    "requires_grad": lambda L, f: f(L.tensor(A, requires_grad=True), L.tensor(B)),
    "noncontiguous": lambda L, f: f(L.tensor(A).t(), L.tensor(A).t()),
    "broadcast_column": lambda L, f: f(L.tensor(A), L.tensor([[1.0], [0.0]])),
    "zero_dim": lambda L, f: f(L.tensor(A), L.tensor(0.0)),
    "empty": lambda L, f: f(L.zeros(0, 3), L.tensor(B)),
    "nan_is_true": lambda L, f: f(L.tensor([float("nan"), 0.0]), L.tensor([1.0, 1.0])),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", NAMES)
def test_logical(name, case):
    compare(*run_both(lambda L: _result(CASES[case](L, getattr(L, name)))))


ERRORS = {
    "scalar_other": lambda L, f: f(L.tensor(A), 1),
    "shapes": lambda L, f: f(L.tensor(A), L.ones(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
@pytest.mark.parametrize("name", NAMES)
def test_logical_errors(name, case):
    a, b = run_both(lambda L: capture_error(lambda: ERRORS[case](L, getattr(L, name))))
    assert b is not None
    assert a == b


def _state(t):
    return {"value": to_numpy(t), "dtype": str(t.dtype).split(".")[-1],
            "version": t._version, "requires_grad": t.requires_grad,
            "grad_fn": None if t.grad_fn is None else t.grad_fn.name()}


def _args(L, name):
    return () if name == "logical_not_" else (L.tensor(B),)


INPLACE = ["logical_and_", "logical_or_", "logical_xor_", "logical_not_"]
INPLACE_CASES = {
    "float": lambda L: L.tensor(A),
    "int": lambda L: L.tensor([[0, 2, 0], [3, 0, 1]]),
    "bool": lambda L: L.tensor([[True, False, True], [False, False, True]]),
    "leaf_requiring_grad": lambda L: L.tensor(A, requires_grad=True),
    "nonleaf": lambda L: L.tensor(A, requires_grad=True) * 1,
    "transposed": lambda L: L.tensor(A.T.copy()).t(),
}


@pytest.mark.parametrize("case", list(INPLACE_CASES))
@pytest.mark.parametrize("name", INPLACE)
def test_logical_inplace(name, case):
    def scenario(L):
        x = INPLACE_CASES[case](L)
        r = getattr(x, name)(*_args(L, name))
        return r is x, _state(x), x.stride()

    compare(*run_both(scenario))


@pytest.mark.parametrize("name", INPLACE)
def test_logical_inplace_on_a_view(name):
    def scenario(L):
        base = L.tensor(A)
        v = base[:, 1:]
        getattr(v, name)(*(() if name == "logical_not_" else (L.tensor([1.0, 0.0]),)))
        return _state(base), _state(v)

    compare(*run_both(scenario))


@pytest.mark.parametrize("name", INPLACE[:3])
def test_logical_inplace_cannot_broadcast_self(name):
    def scenario(L):
        x = L.zeros(3)
        err = capture_error(lambda: getattr(x, name)(L.tensor(A)))
        return err, x._version

    a, b = run_both(scenario)
    assert b[0] is not None
    assert a == b


@pytest.mark.parametrize("name", INPLACE)
def test_logical_inplace_on_a_saved_tensor_fails_the_backward(name):
    """No history change, but the version bump is seen by the node that saved the tensor."""
    def scenario(L):
        w = L.tensor(A, requires_grad=True)
        h = w * 1
        y = (h * h).sum()  # MulBackward0 saves h
        getattr(h, name)(*_args(L, name))
        err = capture_error(y.backward)
        return err[0], "modified by an inplace operation" in err[1], h.grad_fn.name()

    compare(*run_both(scenario))


def test_logical_methods_written_out():
    """The Tensor methods by name (the tables above reach them through ``getattr``)."""
    def scenario(L):
        x, y = L.tensor(A), L.tensor(B)
        outs = [x.logical_and(y), x.logical_or(y), x.logical_xor(y)]
        a, b, c = L.tensor(A), L.tensor(A), L.tensor(A)
        a.logical_and_(y)
        b.logical_or_(y)
        c.logical_xor_(y)
        return [_result(t) for t in outs] + [_state(t) for t in (a, b, c)]

    compare(*run_both(scenario))
