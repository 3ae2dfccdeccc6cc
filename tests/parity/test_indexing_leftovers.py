"""Parity of the indexing leftovers of issue 19 (item 4): a tensor index that requires grad (a
float tensor, which PyTorch refuses as an index), Python floats, lists of floats, uint8 masks
(deprecated, with PyTorch's warning), Python ``range`` indices mixed with ``Ellipsis``/``None``,
several ``Ellipsis``, negative steps refused — values, gradients, graphs, warnings, errors.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import compare, graph_trace, run_both, to_numpy

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7


def _outcome(L, fn):
    """Value, graph and gradient of ``fn(x)`` for a leaf ``x``, or the error; warnings."""
    x = L.tensor(A, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(L, x)
        except Exception as e:  # noqa: BLE001 - compared
            return {"error": (type(e).__name__, str(e).split(" (Triggered")[0]),
                    "warnings": sorted({str(w.message).split(" (Triggered")[0]
                                        for w in caught})}
    trace = {"value": to_numpy(out), "shape": list(out.shape),
             "graph": graph_trace(out) if out.grad_fn is not None else None,
             "warnings": sorted({str(w.message).split(" (Triggered")[0] for w in caught})}
    if out.requires_grad:
        w = L.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(
            np.float32))
        (out * w).sum().backward()
        trace["grad"] = to_numpy(x.grad)
    return trace


def C(id, fn):
    return pytest.param(fn, id=id)


CASES = [
    # a float index tensor, requiring grad or not, is refused (it is the only kind that can)
    C("float_index_requiring_grad", lambda L, x: x[L.tensor([0.0, 1.0], requires_grad=True)]),
    C("float_index", lambda L, x: x[L.tensor([0.0, 1.0])]),
    C("float_0dim_index_requiring_grad", lambda L, x: x[L.tensor(1.0, requires_grad=True)]),
    C("float_index_in_a_tuple", lambda L, x: x[0, L.tensor([1.0], requires_grad=True)]),
    C("float_index_of_a_detached_index", lambda L, x: x[(x[0, 0] * 0).detach()]),
    C("index_select_float", lambda L, x: L.index_select(x, 1, L.tensor([0.0, 1.0]))),
    C("gather_float", lambda L, x: L.gather(x, 2, L.zeros(2, 3, 1, requires_grad=True))),
    C("int_index_cannot_require_grad", lambda L, x: L.tensor([0, 1]).requires_grad_()),
    C("python_float", lambda L, x: x[1.0]),
    C("python_float_in_a_tuple", lambda L, x: x[0, 1.5]),
    C("list_of_floats", lambda L, x: x[[0.0, 1.7]]),
    C("list_of_floats_in_a_tuple", lambda L, x: x[:, [2.2, 0.0]]),
    # uint8 masks: deprecated, read as bool masks
    C("uint8_mask", lambda L, x: x[L.tensor([[1, 0, 1], [0, 1, 1]], dtype=L.uint8)]),
    C("uint8_mask_1d", lambda L, x: x[:, L.tensor([0, 1, 1], dtype=L.uint8)]),
    C("uint8_mask_wrong_shape", lambda L, x: x[L.tensor([1, 0, 1], dtype=L.uint8)]),
    # range, with Ellipsis and None
    C("range", lambda L, x: x[range(2)]),
    C("range_step", lambda L, x: x[:, range(0, 3, 2)]),
    C("two_ranges", lambda L, x: x[range(2), range(1, 3)]),
    C("range_ellipsis_none", lambda L, x: x[None, ..., range(3)]),
    C("ellipsis_range_none", lambda L, x: x[..., range(1, 3), None]),
    C("range_none_range", lambda L, x: x[range(2), None, range(3)]),
    C("range_empty", lambda L, x: x[range(0)]),
    C("range_negative", lambda L, x: x[range(-1, -3, -1)]),
    C("range_out_of_bounds", lambda L, x: x[range(5)]),
    C("ellipsis_none_int", lambda L, x: x[..., None, 1]),
    C("none_ellipsis_none", lambda L, x: x[None, ..., None]),
    # several Ellipsis: the first one fills the dims
    C("two_ellipsis", lambda L, x: x[..., ...]),
    C("ellipsis_int_ellipsis", lambda L, x: x[..., 0, ...]),
    C("ellipsis_none_ellipsis", lambda L, x: x[..., None, ...]),
    # negative steps
    C("negative_step", lambda L, x: x[::-1]),
    C("negative_step_inner", lambda L, x: x[:, :, ::-2]),
    C("zero_step", lambda L, x: x[::0]),
]


@pytest.mark.parametrize("fn", CASES)
def test_indexing(fn):
    compare(*run_both(_outcome, fn))


def _write(L, fn):
    x = L.tensor(A, requires_grad=True)
    h = x * 1
    try:
        fn(L, h)
    except Exception as e:  # noqa: BLE001 - compared
        return (type(e).__name__, str(e).split(" (Triggered")[0])
    h.sum().backward()
    return to_numpy(h), h._version, h.grad_fn.name(), to_numpy(x.grad)


WRITES = [
    C("set_range", lambda L, h: h.__setitem__(range(1), 0.0)),
    C("set_range_ellipsis", lambda L, h: h.__setitem__((..., range(0, 4, 3)), L.zeros(1))),
    C("set_float_index_requiring_grad", lambda L, h: h.__setitem__(
        L.tensor([0.0], requires_grad=True), 1.0)),
    C("set_python_float", lambda L, h: h.__setitem__(1.0, 0.0)),
    C("set_negative_step", lambda L, h: h.__setitem__(slice(None, None, -1), 0.0)),
    C("set_two_ellipsis", lambda L, h: h.__setitem__((..., 1, ...), 5.0)),
]


@pytest.mark.parametrize("fn", WRITES)
def test_indexed_writes(fn):
    compare(*run_both(_write, fn))
