"""Parity: second- and third-order gradients through the convolution and upsampling backward
nodes (``create_graph=True``, then the gradient of a gradient), float64.

Convolutions (``conv1d``/``conv2d``/``conv3d``, ``conv_transpose1d/2d/3d``, with stride,
padding, ``'same'``/``'valid'``, dilation, groups, output_padding): under create_graph the
three gradients are the outputs of one ``ConvolutionBackwardBackward0`` (its edges, saved
names and values are PyTorch's), and the gradients of a function of them equal PyTorch's.
``F.interpolate`` nearest / linear / bilinear: ``Upsample*BackwardBackward0``. The expected
values come from live PyTorch in the same test.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, saved_names

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(20)

# name, functional, input shape, weight shape, kwargs, third order (PyTorch 2.13's third
# derivative of a transposed convolution with output_padding fails in PyTorch itself)
CONV_CASES = [
    ("conv2d", "conv2d", (2, 4, 6, 5), (6, 2, 3, 2),
     {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2}, True),
    ("conv2d_same", "conv2d", (2, 3, 6, 6), (4, 3, 4, 4), {"padding": "same"}, True),
    ("conv2d_valid", "conv2d", (1, 3, 5, 6), (2, 3, 3, 3), {"padding": "valid"}, True),
    ("conv1d", "conv1d", (2, 3, 9), (4, 3, 3), {"stride": 2, "padding": 1}, True),
    ("conv1d_groups", "conv1d", (2, 4, 10), (6, 2, 3), {"dilation": 2, "groups": 2}, True),
    ("conv_transpose2d", "conv_transpose2d", (2, 4, 4, 5), (4, 3, 3, 3),
     {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, True),
    ("conv_transpose2d_outpad", "conv_transpose2d", (2, 4, 4, 5), (4, 3, 3, 3),
     {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, False),
    ("conv_transpose1d", "conv_transpose1d", (2, 4, 6), (4, 3, 3),
     {"stride": 2, "padding": 1, "groups": 2}, True),
    ("conv3d", "conv3d", (2, 4, 4, 5, 4), (6, 2, 3, 2, 3),
     {"stride": (2, 1, 1), "padding": 1, "dilation": (1, 2, 1), "groups": 2}, True),
    ("conv3d_same", "conv3d", (1, 3, 4, 4, 4), (2, 3, 2, 3, 2), {"padding": "same"}, True),
    ("conv_transpose3d", "conv_transpose3d", (2, 4, 3, 3, 2), (4, 3, 3, 2, 3),
     {"stride": 2, "padding": 1, "output_padding": (1, 0, 1), "groups": 2}, False),
    ("conv_transpose3d_dilated", "conv_transpose3d", (1, 2, 3, 2, 3), (2, 2, 2, 3, 2),
     {"dilation": 2, "padding": 1}, True),
]


def _conv_out_channels(fn, wshape, kwargs):
    return wshape[1] * kwargs.get("groups", 1) if "transpose" in fn else wshape[0]


def _second_order(lib, fn, xa, wa, ba, third, device):
    x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
    F = lib.nn.functional
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ('same' with an even kernel warns in both)
        y = fn(F, x, w, b)
    grads = lib.autograd.grad((y * y).sum(), (x, w, b), create_graph=True)
    node = grads[1].grad_fn  # (grads[0] passes a ConstantPadNd first for an odd 'same')
    out = {"graph": graph_trace(grads[0]), "one_node": [g.grad_fn is node for g in grads],
           "saved": {n: getattr(node, n) for n in saved_names(node)
                     if not hasattr(getattr(node, n), "shape")},
           "saved_tensors": [getattr(node, n) is t for n, t in
                             (("_saved_input", x), ("_saved_weight", w))]}
    penalty = sum(((g * g).sum() for g in grads), 0)
    second = lib.autograd.grad(penalty, (x, w, b), create_graph=third)
    out["second"] = [to_numpy(g) for g in second]
    if third:
        out["second_graph"] = graph_trace(second[0])
        third_grads = lib.autograd.grad(sum(((g * g).sum() for g in second), 0), (x, w, b))
        out["third"] = [to_numpy(g) for g in third_grads]
    return out


@pytest.mark.parametrize("name,fn,xshape,wshape,kwargs,third", CONV_CASES,
                         ids=[c[0] for c in CONV_CASES])
def test_conv_second_order(device, name, fn, xshape, wshape, kwargs, third):
    def op(F, x, w, b):
        return getattr(F, fn)(x, w, b, **kwargs)

    xa, wa = RNG.standard_normal(xshape), RNG.standard_normal(wshape)
    ba = RNG.standard_normal(_conv_out_channels(fn, wshape, kwargs))
    assert_parity(lambda lib, device: _second_order(lib, op, xa, wa, ba, third, device),
                  device=device, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("fn", ["conv2d", "conv1d", "conv_transpose2d", "conv3d"])
def test_conv_gradient_penalty(device, fn):
    """WGAN-GP's pattern: the input gradient alone with create_graph (its node needs only
    grad_output and weight), its norm penalised, backward into the weight and the bias."""
    shapes = {"conv2d": ((2, 3, 5, 5), (4, 3, 3, 3)), "conv1d": ((2, 3, 7), (4, 3, 3)),
              "conv_transpose2d": ((2, 3, 4, 4), (3, 2, 3, 3)),
              "conv3d": ((1, 2, 5, 4, 5), (3, 2, 3, 2, 3))}[fn]
    xa, wa = RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1])
    ba = RNG.standard_normal(_conv_out_channels(fn, shapes[1], {}))

    def scenario(lib, device):
        x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
        y = getattr(lib.nn.functional, fn)(x, w, b, stride=2).tanh()
        gx, = lib.autograd.grad(y.sum(), x, create_graph=True)
        ((gx * gx).sum() - 1).pow(2).backward()
        return {"graph": graph_trace(gx), "w": to_numpy(w.grad), "b": to_numpy(b.grad),
                "x": to_numpy(x.grad)}

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-9)


def test_conv_gradient_of_linear_loss(device):
    """A loss linear in the output: the input gradient depends on the weight only (no edge
    to grad_output), the second derivative wrt the input is zero (None in both)."""
    xa, wa = RNG.standard_normal((1, 2, 5, 5)), RNG.standard_normal((3, 2, 3, 3))

    def scenario(lib, device):
        x, w = leaf(lib, xa, device), leaf(lib, wa, device)
        gx, = lib.autograd.grad(lib.nn.functional.conv2d(x, w).sum(), x, create_graph=True)
        gx2 = lib.autograd.grad((gx * gx).sum(), (x, w), allow_unused=True)
        return {"graph": graph_trace(gx), "gx2": [None if g is None else to_numpy(g)
                                                  for g in gx2]}

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-9)


INTERP_CASES = [
    ((1, 2, 3, 3), {"scale_factor": 2, "mode": "bilinear"}),
    ((1, 2, 3, 4), {"size": (5, 7), "mode": "bilinear", "align_corners": True}),
    ((2, 2, 3, 3), {"scale_factor": 1.7}),
    ((2, 1, 4, 3), {"size": (4, 9)}),
    ((1, 2, 5), {"size": 8, "mode": "linear"}),
    ((1, 2, 5), {"scale_factor": 2.5}),
    ((1, 1, 2, 2, 3), {"scale_factor": 2}),
]


@pytest.mark.parametrize("shape,kwargs", INTERP_CASES, ids=[str(c[1]) for c in INTERP_CASES])
def test_interpolate_second_order(device, shape, kwargs):
    xa = RNG.standard_normal(shape)

    def scenario(lib, device):
        x = leaf(lib, xa, device)
        y = lib.nn.functional.interpolate(x, **kwargs)
        g, = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        k, = lib.autograd.grad((h * h).sum(), x)
        node = g.grad_fn
        return {"graph": graph_trace(g), "second_graph": graph_trace(h),
                "saved": {n: getattr(node, n) for n in saved_names(node)},
                "second": to_numpy(h), "third": to_numpy(k)}

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-9)
