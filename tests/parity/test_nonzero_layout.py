"""Parity of ``nonzero``/``argwhere``'s result layout (issue 19): the ``[n, ndim]`` index
tensor is written column by column, strides ``(1, n)`` for every ``n`` (``(1, 0)`` with no
match, ``(1, 1)`` with one, which NumPy's own layout would hide), the ``as_tuple`` tensors are
views of its columns sharing one version counter, and ``out=`` takes that layout when it is
resized and keeps its own when its shape already fits."""

import warnings

import numpy as np
import pytest

from minigrad.parity import compare, run_both, to_numpy

INPUTS = {
    "none_2d": np.zeros((2, 3), np.float32),
    "none_1d": np.zeros(4, np.float32),
    "none_0d": np.float32(0.0),
    "one_0d": np.float32(2.0),
    "none_empty_dim": np.zeros((2, 0, 3), np.float32),
    "one_2d": np.array([[0.0, 1.0], [0.0, 0.0]], np.float32),
    "three_2d": np.array([[1.0, 1.0], [0.0, 1.0]], np.float32),
    "all_3d": np.ones((2, 3, 4), np.float32),
    "bool": np.array([[False, True], [True, False]]),
    "int": np.array([0, 3, 0, -1], np.int64),
}


def _layout(t):
    return {
        "shape": tuple(t.shape),
        "stride": t.stride(),
        "dtype": str(t.dtype).split(".")[-1],
        "contiguous": t.is_contiguous(),
        "values": to_numpy(t),
    }


@pytest.mark.parametrize("fn", ["nonzero", "method", "argwhere", "argwhere_method"])
@pytest.mark.parametrize("case", list(INPUTS))
def test_nonzero_layout(case, fn):
    def scenario(L):
        x = L.tensor(INPUTS[case])
        r = {
            "nonzero": lambda: L.nonzero(x),
            "method": x.nonzero,
            "argwhere": lambda: L.argwhere(x),
            "argwhere_method": x.argwhere,
        }[fn]()
        return _layout(r)

    compare(*run_both(scenario))


@pytest.mark.parametrize("case", list(INPUTS))
def test_nonzero_as_tuple_views(case):
    def scenario(L):
        parts = L.nonzero(L.tensor(INPUTS[case]), as_tuple=True)
        trace = [dict(_layout(p), view=p._is_view(), base=_layout(p._base)) for p in parts]
        if parts and parts[0].numel():
            parts[0].add_(1)  # (one version counter: the columns of one tensor)
            trace.append([p._version for p in parts])
            trace.append(to_numpy(parts[0]._base))
        return trace

    compare(*run_both(scenario))


OUTS = {
    "empty": lambda L: L.empty(0, dtype=L.long),
    "flat5": lambda L: L.empty(5, dtype=L.long),
    "row": lambda L: L.empty(1, 2, dtype=L.long),
    "c4x2": lambda L: L.empty(4, 2, dtype=L.long),
    "e0x2": lambda L: L.empty(0, 2, dtype=L.long),
}


@pytest.mark.parametrize("out", list(OUTS))
@pytest.mark.parametrize("case", ["none_2d", "one_2d", "all_3d", "three_2d", "none_1d"])
def test_nonzero_out_layout(case, out):
    def scenario(L):
        o = OUTS[out](L)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = L.nonzero(L.tensor(INPUTS[case]), out=o)
        return dict(
            _layout(o), same=r is o, version=o._version, warned=[str(w.message)[:80] for w in seen]
        )

    compare(*run_both(scenario))
