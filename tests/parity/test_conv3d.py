"""Parity of ``F.conv3d`` / ``nn.Conv3d`` and ``F.conv_transpose3d`` / ``nn.ConvTranspose3d``:
values, gradients of input, weight and bias, the ``ConvolutionBackward0`` node and its saved
attributes (3-tuples, ``transposed``), the ``Unsqueeze``/``Squeeze`` nodes of unbatched input
and the ``ConstantPadNd`` of an odd ``'same'``, errors (type and message), module repr,
state_dict, ``output_size`` and padding modes. Second order: ``test_conv_double_backward.py``.
"""

import warnings

import pytest

from minigrad.parity import assert_parity

from .test_conv_more import CONV_TOL, _errors, _ids, _module_trace, _saved_values
from .test_functional import leaf, rand, run_op

torch = pytest.importorskip("torch")

CONV3D_CASES = [
    ((2, 3, 5, 5, 5), (4, 3, 3, 3, 3), {}),
    ((2, 3, 5, 6, 4), (4, 3, 3, 2, 1), {"stride": (2, 1, 2), "padding": (1, 0, 1)}),
    ((1, 4, 6, 5, 5), (6, 2, 3, 3, 2), {"groups": 2, "dilation": (2, 1, 2), "padding": 2}),
    ((2, 3, 5, 5, 4), (4, 3, 2, 3, 2), {"padding": "same"}),
    ((2, 3, 5, 5, 4), (4, 3, 3, 3, 3), {"padding": "same", "dilation": 2}),
    ((3, 5, 5, 4), (4, 3, 3, 3, 3), {"padding": "valid"}),
]


@pytest.mark.parametrize("xs,ws,kwargs", CONV3D_CASES, ids=_ids(CONV3D_CASES))
@pytest.mark.parametrize("bias", [True, False])
def test_conv3d_values_grads_graph(device, xs, ws, kwargs, bias):
    arrays = [rand(*xs), rand(*ws), rand(ws[0]) if bias else None]

    def op(F, x, w, b):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (an odd 'same' warns in both)
            return F.conv3d(x, w, b, **kwargs)

    assert_parity(run_op, op, arrays, device=device, **CONV_TOL)


CONVT3D_CASES = [
    ((2, 3, 3, 4, 3), (3, 4, 3, 3, 3), {}),
    ((2, 3, 3, 4, 3), (3, 4, 3, 2, 3), {"stride": 2, "padding": 1,
                                        "output_padding": (1, 0, 1)}),
    ((1, 4, 3, 3, 4), (4, 3, 2, 3, 3), {"stride": (3, 2, 1), "groups": 2,
                                        "dilation": (1, 2, 2), "padding": (0, 1, 2)}),
    ((3, 3, 4, 3), (3, 2, 3, 3, 3), {"stride": 2}),
]


@pytest.mark.parametrize("xs,ws,kwargs", CONVT3D_CASES, ids=_ids(CONVT3D_CASES))
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose3d_values_grads_graph(device, xs, ws, kwargs, bias):
    o = ws[1] * kwargs.get("groups", 1)
    arrays = [rand(*xs), rand(*ws), rand(o) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: F.conv_transpose3d(x, w, b, **kwargs), arrays,
                  device=device, **CONV_TOL)


@pytest.mark.parametrize("fn", ["conv3d", "conv_transpose3d"])
@pytest.mark.parametrize("no_grad", [(0,), (1,), (1, 2)], ids=["input", "weight", "w+b"])
def test_conv3d_inputs_without_grad(device, fn, no_grad):
    ws = (4, 3, 3, 3, 3) if fn == "conv3d" else (3, 4, 3, 3, 3)
    assert_parity(run_op, lambda F, x, w, b: getattr(F, fn)(x.transpose(2, 4), w, b, stride=2),
                  [rand(2, 3, 5, 4, 5), rand(*ws), rand(4)], no_grad=no_grad, device=device,
                  **CONV_TOL)


@pytest.mark.parametrize("fn,ws,args", [
    ("conv3d", (4, 2, 3, 3, 3), (2, 1, 2, 2)),
    ("conv3d", (4, 4, 2, 2, 2), (1, "valid")),
    ("conv_transpose3d", (4, 3, 3, 3, 3), (2, 1, 1, 2, 1)),
])
def test_conv3d_saved_attributes(device, fn, ws, args):
    def scenario(lib, xa, wa, ba, device):
        x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
        node = getattr(lib.nn.functional, fn)(x, w, b, *args).grad_fn
        return {"saved": _saved_values(node), "input_is_x": node._saved_input is x,
                "weight_is_w": node._saved_weight is w}

    o = ws[1] * 2 if fn == "conv_transpose3d" else ws[0]
    assert_parity(scenario, rand(2, 4, 5, 5, 5), rand(*ws), rand(o), device=device)


CONV3D_ERRORS = {
    "channels": ((2, 2, 5, 5, 5), (4, 3, 3, 3, 3), None, {}),
    "groups_divisible": ((1, 4, 5, 5, 5), (3, 2, 3, 3, 3), None, {"groups": 2}),
    "kernel_too_large": ((1, 3, 2, 5, 5), (4, 3, 3, 3, 3), None, {}),
    "bias_size": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), (3,), {}),
    "input_rank": ((3, 5, 5), (4, 3, 3, 3, 3), None, {}),
    "padding_string": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"padding": "foo"}),
    "same_strided": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"padding": "same", "stride": 2}),
    "stride_zero": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"stride": 0}),
    "stride_len": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"stride": (1, 2)}),
    "padding_negative": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"padding": -1}),
    "dilation_zero": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"dilation": 0}),
    "groups_zero": ((1, 3, 5, 5, 5), (4, 3, 3, 3, 3), None, {"groups": 0}),
}


@pytest.mark.parametrize("name", sorted(CONV3D_ERRORS))
def test_conv3d_errors(name):
    xs, ws, bs, kwargs = CONV3D_ERRORS[name]
    x, w, b = rand(*xs), rand(*ws), None if bs is None else rand(*bs)
    _errors(lambda lib, F: F.conv3d(lib.tensor(x), lib.tensor(w),
                                    None if b is None else lib.tensor(b), **kwargs))


CONVT3D_ERRORS = {
    "output_padding": ((2, 3, 3, 3, 3), (3, 4, 3, 3, 3), None,
                       {"stride": 2, "output_padding": 2}),
    "channels": ((2, 4, 3, 3, 3), (3, 4, 3, 3, 3), None, {}),
    "groups_divisible": ((2, 4, 3, 3, 3), (4, 3, 3, 3, 3), None, {"groups": 3}),
    "bias_size": ((2, 4, 3, 3, 3), (4, 3, 3, 3, 3), (4,), {}),
    "input_rank": ((2, 4, 5), (4, 3, 3, 3, 3), None, {}),
    "padding_negative": ((2, 4, 3, 3, 3), (4, 3, 3, 3, 3), None, {"padding": -1}),
    "padding_string": ((2, 4, 3, 3, 3), (4, 3, 3, 3, 3), None, {"padding": "same"}),
    "output_too_small": ((1, 4, 1, 1, 1), (4, 3, 3, 3, 3), None, {"padding": 2}),
}


@pytest.mark.parametrize("name", sorted(CONVT3D_ERRORS))
def test_conv_transpose3d_errors(name):
    xs, ws, bs, kwargs = CONVT3D_ERRORS[name]
    x, w, b = rand(*xs), rand(*ws), None if bs is None else rand(*bs)
    _errors(lambda lib, F: F.conv_transpose3d(lib.tensor(x), lib.tensor(w),
                                              None if b is None else lib.tensor(b), **kwargs))


MODULES = {
    "conv3d": (lambda nn: nn.Conv3d(4, 6, 3), (2, 4, 5, 5, 5)),
    "conv3d_opts": (lambda nn: nn.Conv3d(4, 6, (2, 3, 2), stride=2, padding=1, dilation=(1, 2, 1),
                                         groups=2, bias=False), (2, 4, 5, 6, 5)),
    "conv3d_same_unbatched": (lambda nn: nn.Conv3d(4, 6, 3, padding="same"), (4, 5, 5, 4)),
    "conv3d_circular": (lambda nn: nn.Conv3d(4, 6, 3, padding=1, padding_mode="circular"),
                        (2, 4, 4, 5, 4)),
    "convt3d": (lambda nn: nn.ConvTranspose3d(4, 6, 3), (2, 4, 3, 3, 3)),
    "convt3d_opts": (lambda nn: nn.ConvTranspose3d(4, 6, (3, 2, 3), stride=2, padding=1,
                                                   output_padding=1, groups=2, bias=False,
                                                   dilation=(1, 2, 1)), (2, 4, 3, 4, 3)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_conv3d_modules(name):
    make, shape = MODULES[name]
    assert_parity(_module_trace, make, rand(*shape), **CONV_TOL)


@pytest.mark.parametrize("size", [(6, 8, 7), [2, 4, 6, 8, 7], (5, 7, 7)])
def test_conv_transpose3d_output_size(size):
    assert_parity(_module_trace, lambda nn: nn.ConvTranspose3d(4, 3, 3, stride=2, padding=1),
                  rand(2, 4, 3, 4, 4), lambda m, x: m(x, output_size=size), **CONV_TOL)


@pytest.mark.parametrize("size", [(20, 8, 7), (8, 7)])
def test_conv_transpose3d_output_size_errors(size):
    def fn(lib, F):
        m = lib.nn.ConvTranspose3d(4, 3, 3, stride=2, padding=1)
        m(lib.tensor(rand(2, 4, 3, 4, 4)), output_size=size)
    _errors(fn)
