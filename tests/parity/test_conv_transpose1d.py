"""Parity of ``F.conv_transpose1d`` / ``nn.ConvTranspose1d``: values, gradients of input,
weight and bias, the ``ConvolutionBackward0`` node (``transposed=True``, 1-tuples saved) and
the ``Unsqueeze``/``Squeeze`` nodes of unbatched input, errors (PyTorch runs it as a 2-D
transposed convolution of height 1, and its messages say so), module repr, state_dict and
``output_size``. Second order: ``test_conv_double_backward.py``.
"""

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity

from .test_conv_more import CONV_TOL, _errors, _ids, _module_trace, _saved_values
from .test_functional import leaf, rand, run_op

torch = pytest.importorskip("torch")

CASES = [
    ((2, 3, 5), (3, 4, 3), {}),
    ((2, 3, 6), (3, 4, 2), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 5), (4, 3, 3), {"stride": (3,), "padding": (2,), "output_padding": (2,),
                            "groups": 2, "dilation": (1,)}),
    ((2, 2, 4), (2, 3, 3), {"dilation": 2, "padding": 3}),
    ((2, 2, 4), (2, 3, 3), {"stride": 1, "dilation": 3, "output_padding": 2}),
    ((3, 7), (3, 4, 3), {"stride": 2}),
    ((2, 3, 1), (3, 2, 4), {}),
]


@pytest.mark.parametrize("xs,ws,kwargs", CASES, ids=_ids(CASES))
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose1d_values_grads_graph(device, xs, ws, kwargs, bias):
    o = ws[1] * kwargs.get("groups", 1)
    arrays = [rand(*xs), rand(*ws), rand(o) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: F.conv_transpose1d(x, w, b, **kwargs), arrays,
                  device=device, **CONV_TOL)


@pytest.mark.parametrize("no_grad", [(0,), (1,), (1, 2)], ids=["input", "weight", "w+b"])
def test_conv_transpose1d_inputs_without_grad(device, no_grad):
    assert_parity(run_op, lambda F, x, w, b: F.conv_transpose1d(x.transpose(1, 2), w, b,
                                                                stride=2),
                  [rand(2, 4, 3), rand(3, 2, 3), rand(2)], no_grad=no_grad, device=device,
                  **CONV_TOL)


def test_conv_transpose1d_saved_attributes(device):
    def scenario(lib, xa, wa, ba, device):
        x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
        node = lib.nn.functional.conv_transpose1d(x, w, b, 2, 1, 1, 2, 1).grad_fn
        return {"saved": _saved_values(node), "input_is_x": node._saved_input is x,
                "weight_is_w": node._saved_weight is w}

    assert_parity(scenario, rand(2, 4, 5), rand(4, 3, 3), rand(6), device=device)


ERRORS = {
    "output_padding": ((2, 3, 5), (3, 4, 3), None, {"stride": 2, "output_padding": 2}),
    "channels": ((2, 4, 5), (3, 4, 3), None, {}),
    "groups_divisible": ((2, 4, 5), (4, 3, 3), None, {"groups": 3}),
    "bias_size": ((2, 4, 5), (4, 3, 3), (4,), {}),
    "input_rank": ((2, 4, 5, 5), (4, 3, 3), None, {}),
    "padding_negative": ((2, 4, 5), (4, 3, 3), None, {"padding": -1}),
    "stride_zero": ((2, 4, 5), (4, 3, 3), None, {"stride": 0}),
    "padding_string": ((2, 4, 5), (4, 3, 3), None, {"padding": "same"}),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_conv_transpose1d_errors(name):
    xs, ws, bs, kwargs = ERRORS[name]
    x, w, b = rand(*xs), rand(*ws), None if bs is None else rand(*bs)
    _errors(lambda lib, F: F.conv_transpose1d(lib.tensor(x), lib.tensor(w),
                                              None if b is None else lib.tensor(b), **kwargs))


def test_conv_transpose1d_dtype_mismatch():
    """(PyTorch words it otherwise when it picks its oneDNN kernel, for larger shapes.)"""
    x, w = rand(1, 2, 4), rand(2, 3, 3)
    _errors(lambda lib, F: F.conv_transpose1d(lib.tensor(x), lib.tensor(w).double()))


MODULES = {
    "convt1d": (lambda nn: nn.ConvTranspose1d(4, 6, 3), (2, 4, 5)),
    "convt1d_opts": (lambda nn: nn.ConvTranspose1d(4, 6, 2, stride=2, padding=1,
                                                   output_padding=1, groups=2, bias=False,
                                                   dilation=2), (2, 4, 5)),
    "convt1d_unbatched": (lambda nn: nn.ConvTranspose1d(4, 6, 3, stride=2), (4, 5)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_conv_transpose1d_module(name):
    make, shape = MODULES[name]
    a, b = assert_parity(_module_trace, make, rand(*shape), **CONV_TOL)
    assert a["kinds"] == [False, False, False]  # neither Conv1d, Conv2d nor ConvTranspose2d


@pytest.mark.parametrize("size", [(12,), [2, 6, 12], (11,)])
def test_conv_transpose1d_output_size(size):
    assert_parity(_module_trace, lambda nn: nn.ConvTranspose1d(6, 4, 3, stride=2, padding=1),
                  rand(2, 6, 6), lambda m, x: m(x, output_size=size), **CONV_TOL)


@pytest.mark.parametrize("size", [(20,), (11, 12)])
def test_conv_transpose1d_output_size_errors(size):
    def fn(lib, F):
        m = lib.nn.ConvTranspose1d(6, 4, 3, stride=2, padding=1)
        m(lib.tensor(rand(2, 6, 6)), output_size=size)
    _errors(fn)


def test_conv_transpose1d_module_errors():
    for lib in (minigrad, torch):
        with pytest.raises(ValueError, match='Only "zeros" padding mode'):
            lib.nn.ConvTranspose1d(4, 6, 3, padding_mode="reflect")
    _errors(lambda lib, F: lib.nn.ConvTranspose1d(4, 6, 3)(lib.tensor(np.ones((1, 4, 5, 5),
                                                                               np.float32))))
