"""Every backward node minigrad defines, produced by one small program on both libraries.

For each node name the table gives an expression that makes PyTorch record that node; the test
runs it on minigrad and torch and checks that (1) the node appears in both graphs, (2) the whole
graphs are identical (names, edges, input_nr), (3) values and the gradients of every input agree.
A node PyTorch records only inside another one (``IndexPutImplBackward0``, kept inside the
``CopySlices`` of ``b[0, idx] = v`` and never reachable through ``next_functions``) cannot be
seen from Python in either library; it is listed in ``HIDDEN``.
``test_every_node_class_is_covered`` fails when a node class is added without a row here.
"""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pytest

from minigrad.parity import compare, graph_trace, to_numpy

RNG = np.random.default_rng(7)
ARRAYS = {
    "x": RNG.standard_normal((3, 4)),
    "y": RNG.standard_normal((3, 4)),
    "pos": RNG.random((3, 4)) + 0.5,
    "w": RNG.standard_normal((4, 5)),
    "b": RNG.standard_normal(5),
    "v": RNG.standard_normal(4),
    "u": RNG.standard_normal(4),
    "a3": RNG.standard_normal((2, 3, 4)),
    "b3": RNG.standard_normal((2, 4, 5)),
    "x4": RNG.standard_normal((1, 3, 1, 4)),
    "img": RNG.standard_normal((2, 3, 6, 6)),
    "k": RNG.standard_normal((4, 3, 3, 3)),
}


def _inputs(lib):
    return {k: lib.tensor(a, requires_grad=True) for k, a in ARRAYS.items()}


def _inplace_view(lib, t):
    h = t["x"] * 1
    v = h[0]
    v.mul_(2)
    return v


def _copy(lib, t):
    h = t["x"] * 1
    return h.copy_(t["y"])


def _setitem_scalar(lib, t):
    h = t["x"] * 1
    h[:] = 5.0
    return h + t["y"]


def _setitem_row(lib, t):
    h = t["x"] * 1
    h[0] = t["v"]
    return h


def _setitem_mask(lib, t):
    h = t["x"] * 1
    h[h > 0] = 0.0
    return h


def _elu_double(lib, t):
    x = t["x"]
    out = lib.nn.functional.elu(x, 0.7)
    return lib.autograd.grad((out * t["y"]).sum(), x, create_graph=True)[0]


def _embedding_double(lib, t):
    out = lib.nn.functional.embedding(lib.tensor(np.array([[0, 2], [2, 1]])), t["x"], 1)
    g = (t["y"][:2, :2].unsqueeze(-1) * t["x"][:2]).reshape(2, 2, 4)
    return lib.autograd.grad(out, t["x"], g, create_graph=True)[0]


def _select_double(lib, t):
    x = t["x"]
    return lib.autograd.grad((x[0] * x[0]).sum(), x, create_graph=True)[0]


def _slice_double(lib, t):
    x = t["x"]
    return lib.autograd.grad((x[1:] * x[1:]).sum(), x, create_graph=True)[0]


def _tanh_double(lib, t):
    x, y = t["x"], t["y"]  # y: a grad_output that requires grad, so both slots are edges
    return lib.autograd.grad(x.tanh(), x, y, create_graph=True)[0]


def _relu_double(lib, t):
    x, y = t["x"], t["y"]  # y: a grad_output that requires grad, so both slots are edges
    return lib.autograd.grad(x.relu(), x, y, create_graph=True)[0]


def _nll_double(lib, t):
    x, v = t["x"], t["v"][:3]  # v: a per-sample grad_output (reduction 'none') needing grad
    loss = lib.nn.functional.nll_loss(x, lib.tensor(np.array([0, 3, 1])), reduction="none")
    return lib.autograd.grad(loss, x, v, create_graph=True)[0]


def _nll2d_double(lib, t):
    target = lib.tensor(RNG_TARGET2D)
    loss = lib.nn.functional.nll_loss(t["img"], target, ignore_index=1)
    return lib.autograd.grad(loss, t["img"], t["u"].sum(), create_graph=True)[0]


def _leaky_relu_double(lib, t):
    x, y = t["x"], t["y"]
    return lib.autograd.grad(lib.nn.functional.leaky_relu(x, 0.2), x, y, create_graph=True)[0]


def _softplus_double(lib, t):
    x, y = t["x"], t["y"]
    out = lib.nn.functional.softplus(x, 2, 1.0)
    return lib.autograd.grad(out, x, y, create_graph=True)[0]


def _hard_double(name):
    def case(lib, t):
        x, y = t["x"], t["y"]  # y: a grad_output that requires grad, so both slots are edges
        out = getattr(lib.nn.functional, name)(x * 2)
        return lib.autograd.grad(out, x, y, create_graph=True)[0]

    return case


def _prelu_double(lib, t):
    x, w, g = t["a3"], t["v"][:3], t["b3"][:, :3, :4]  # g: a grad_output that requires grad
    return lib.autograd.grad(lib.nn.functional.prelu(x, w), x, g, create_graph=True)[0]


def _pointwise_double(name, **kw):
    def case(lib, t):
        x, y, v = t["x"], t["y"], t["u"]  # both inputs and the grad_output (0-d) need grad
        out = getattr(lib.nn.functional, name)(x, y, **kw)
        return lib.autograd.grad(out, x, v.sum(), create_graph=True)[0]

    return case


def _mse_double(lib, t):
    x, y, v = t["x"], t["y"], t["u"]  # both inputs and the grad_output (0-d) need grad
    out = lib.nn.functional.mse_loss(x, y)
    return lib.autograd.grad(out, x, v.sum(), create_graph=True)[0]


def _softmax_double(lib, t):
    x, y = t["x"], t["y"]
    return lib.autograd.grad(x.softmax(1), x, y, create_graph=True)[0]


def _log_softmax_double(lib, t):
    x, y = t["x"], t["y"]
    return lib.autograd.grad(x.log_softmax(-1), x, y, create_graph=True)[0]


def _sigmoid_double(lib, t):
    x, y = t["x"], t["y"]
    return lib.autograd.grad(x.sigmoid(), x, y, create_graph=True)[0]


def _leaky_inplace(lib, t):
    h = t["x"] * 1
    return lib.nn.functional.leaky_relu(h, 0.1, inplace=True)


def _fill(lib, t):
    h = t["x"] * 1
    return h.fill_(2.0)


def _diagonal_double(lib, t):
    x = t["x"]
    return lib.autograd.grad((x.diagonal(1) * t["u"][:3]).sum(), x, create_graph=True)[0]


def _inplace_meta(method, *args, key="x"):
    def case(lib, t):
        h = t[key] * 1
        getattr(h, method)(*args)
        return h

    return case


def _zero(lib, t):
    h = t["x"] * 1
    return h.zero_()


def _gru_batch_first(lib, t):
    """A batch-first GRU: gates cut by ``unsafe_chunk`` (``UnsafeSplitBackward0``), output
    transposed in place (``TransposeBackward1``)."""
    m = lib.nn.GRU(4, 2, batch_first=True).double()
    rng = np.random.default_rng(13)
    m.load_state_dict({k: lib.tensor(rng.standard_normal(tuple(v.shape)))
                       for k, v in m.state_dict().items()})
    return m(t["a3"])[0]


def _lstm_fused(lib, t):
    """A float32 LSTM, PyTorch's default CPU path: one ``MkldnnRnnLayerBackward0`` (computed
    in float32, the result in float64)."""
    m = lib.nn.LSTM(4, 2)
    rng = np.random.default_rng(13)
    m.load_state_dict({k: lib.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                       for k, v in m.state_dict().items()})
    return m(t["a3"].float())[0].double()


def _smooth_ce(lib, t):
    target = lib.tensor(np.array([0, 3, 1]))
    return lib.nn.functional.cross_entropy(t["x"], target, label_smoothing=0.1)


def _smooth_prob_ce(lib, t):
    return lib.nn.functional.cross_entropy(t["x"], t["y"].softmax(1), label_smoothing=0.1)


def _prob_ce(lib, t):
    return lib.nn.functional.cross_entropy(t["x"], t["y"].detach().softmax(1))


def _nll2d(lib, t):
    target = lib.tensor(RNG_TARGET2D)
    return lib.nn.functional.nll_loss(t["img"].log_softmax(1), target)


def _bce_double(lib, t):
    x, y = t["x"].sigmoid(), t["y"].sigmoid()  # the input, the target and grad_output need grad
    loss = lib.nn.functional.binary_cross_entropy(x, y, reduction="sum")
    return lib.autograd.grad(loss, x, t["u"].sum(), create_graph=True)[0]


def _acosh_double(lib, t):
    x = t['pos'] + 1  # the gradient of acosh is grad * (x² - 1).rsqrt(): SubBackward1
    return lib.autograd.grad(x.acosh(), t['pos'], t['y'], create_graph=True)[0]


RNG_TARGET2D = np.random.default_rng(3).integers(0, 3, (2, 6, 6))
F = "lib.nn.functional"

# node name -> expression over the inputs (as text, evaluated with lib and t) or a function
CASES = {
    "AbsBackward0": "t['x'].abs()",
    "AdaptiveAvgPool2DBackward0": f"{F}.adaptive_avg_pool2d(t['img'], 2)",
    "AdaptiveMaxPool2DBackward0": f"{F}.adaptive_max_pool2d(t['img'], (4, 3))",
    "AddBackward0": "t['x'] + t['y']",
    "AddcdivBackward0": "(t['x'] * 1).addcdiv_(t['y'], t['pos'], value=0.5)",
    "AddcmulBackward0": "(t['x'] * 1).addcmul_(t['y'], t['v'], value=0.5)",
    "AddmmBackward0": "lib.addmm(t['b'], t['x'], t['w'])",
    "AliasBackward0": "t['x'][...]",
    "AmaxBackward0": "t['x'].amax(1)",
    "AminBackward0": "t['x'].amin(1)",
    "AsStridedBackward0": _inplace_view,
    "AvgPool2DBackward0": f"{F}.avg_pool2d(t['img'], 2)",
    "BmmBackward0": "lib.bmm(t['a3'], t['b3'])",
    "CatBackward0": "lib.cat([t['x'], t['y'], t['x']])",
    "CeilBackward0": "t['x'].ceil()",
    "ClampBackward0": "t['x'].clamp(min=t['y'])",
    "ClampBackward1": "t['x'].clamp(-0.5, 0.5)",
    "ClampMinBackward0": "t['x'].clamp_min(0.1)",
    "CloneBackward0": "t['x'].clone()",
    "ConstantPadNdBackward0": f"{F}.pad(t['x'], (1, 2))",
    "ConvolutionBackward0": f"{F}.conv2d(t['img'], t['k'], padding=1)",
    "CopyBackwards": _copy,
    "CopySlices": _setitem_row,
    "CosBackward0": "t['x'].cos()",
    "DivBackward0": "t['x'] / t['pos']",
    "DivBackward1": _prob_ce,
    "AddBackward1": _smooth_prob_ce,
    "DotBackward0": "t['v'] @ t['u']",
    "EluBackward0": f"{F}.elu(t['x'], 0.7)",
    "EluBackward1": f"{F}.elu(t['x'] * 1, 0.7, inplace=True)",
    "EluBackwardBackward0": _elu_double,
    "EmbeddingDenseBackwardBackward0": _embedding_double,
    "EmbeddingBackward0": f"{F}.embedding(lib.tensor(np.array([[0, 2], [2, 1]])), t['x'], 1)",
    "ExpBackward0": "t['x'].exp()",
    "ExpandBackward0": "t['v'].expand(3, 4)",
    "FillBackward2": _fill,
    "FillBackward3": _setitem_scalar,
    "FloorBackward0": "t['x'].floor()",
    "GeluBackward0": f"{F}.gelu(t['x'])",
    "GeluBackwardBackward0": _hard_double("gelu"),
    "HardsigmoidBackward0": f"{F}.hardsigmoid(t['x'] * 3)",
    "HardswishBackward0": f"{F}.hardswish(t['x'] * 3)",
    "HardswishBackwardBackward0": _hard_double("hardswish"),
    "HardtanhBackward0": f"{F}.hardtanh(t['x'], -0.5, 0.7)",
    "HardtanhBackwardBackward0": _hard_double("hardtanh"),
    "HuberLossBackward0": f"{F}.huber_loss(t['x'], t['y'], delta=0.6)",
    "HuberLossBackwardBackward0": _pointwise_double("huber_loss", delta=0.6),
    "IndexBackward0": "t['x'][[0, 2, 2]]",
    "IndexPutBackward0": _setitem_mask,
    "LeakyReluBackward0": f"{F}.leaky_relu(t['x'], 0.1)",
    "LeakyReluBackward1": _leaky_inplace,
    "LerpBackward0": "(t['x'] * 1).lerp_(t['y'], 0.3)",
    "LerpBackward1": "(t['x'] * 1).lerp_(t['v'], t['pos'] * 0.5)",
    "LogBackward0": "t['pos'].log()",
    "LogSoftmaxBackward0": "t['x'].log_softmax(1)",
    "LogsumexpBackward0": "t['x'].logsumexp(1)",
    "MaskedFillBackward0": "t['x'].masked_fill(t['y'].detach() > 0, 0.5)",
    "MaskedFillBackward1": "t['x'].masked_fill(t['y'].detach() > 0, t['v'][0])",
    "MaxBackward0": "t['x'].max(1).values",
    "MaxBackward1": "t['x'].max()",
    "MaxPool2DWithIndicesBackward0": f"{F}.max_pool2d(t['img'], 2)",
    "MaximumBackward0": "lib.maximum(t['x'], t['y'])",
    "MeanBackward0": "t['x'].mean()",
    "MeanBackward1": "t['x'].mean(1)",
    "MinBackward0": "t['x'].min(1).values",
    "MishBackward0": f"{F}.mish(t['x'] * 3)",
    "MinBackward1": "t['x'].min()",
    "MinimumBackward0": "lib.minimum(t['x'], t['y'])",
    "MmBackward0": "t['x'] @ t['w']",
    "MseLossBackward0": f"{F}.mse_loss(t['x'], t['y'])",
    "MulBackward0": "t['x'] * t['y']",
    "MulBackward1": _smooth_ce,
    "MvBackward0": "t['x'] @ t['v']",
    "NativeBatchNormBackward0": f"{F}.batch_norm(t['img'], None, None, t['v'][:3], t['b'][:3], "
                                "True)",
    "NativeGroupNormBackward0": f"{F}.group_norm(t['a3'].transpose(1, 2), 2, t['v'], t['u'])",
    "NativeLayerNormBackward0": f"{F}.layer_norm(t['a3'], [4], t['v'], t['u'])",
    "NegBackward0": "-t['x']",
    "NllLoss2DBackward0": _nll2d,
    "NllLossBackward0": f"{F}.nll_loss(t['x'].log_softmax(1), lib.tensor(np.array([0, 3, 1])))",
    "PermuteBackward0": "t['a3'].permute(2, 0, 1)",
    "PreluKernelBackward0": f"{F}.prelu(t['a3'], t['v'][:3])",
    "PreluKernelBackwardBackward0": _prelu_double,
    "PowBackward0": "t['x'] ** 2",
    "PowBackward1": "t['pos'] ** t['y']",
    "PowBackward2": "2 ** t['x']",
    "ReciprocalBackward0": "t['pos'].reciprocal()",
    "ReflectionPad1DBackward0": f"{F}.pad(t['a3'], (2, 1), mode='reflect')",
    "ReflectionPad2DBackward0": f"{F}.pad(t['img'], (2, 1, 0, 3), mode='reflect')",
    "ReluBackward0": "t['x'].relu()",
    "RepeatBackward0": "t['x'].repeat(2, 1)",
    "ReplicationPad1DBackward0": f"{F}.pad(t['a3'], (2, 1), mode='replicate')",
    "ReplicationPad2DBackward0": f"{F}.pad(t['img'], (2, 1, 0, 3), mode='replicate')",
    "ReshapeAliasBackward0": "t['x'].t().reshape(2, 2, 3)",
    "RoundBackward0": "t['x'].round()",
    "RsqrtBackward0": "t['pos'].rsqrt()",
    "RsubBackward1": "2 - t['x']",
    "SelectBackward0": "t['x'][1]",
    "SelectBackwardBackward0": _select_double,
    "SigmoidBackward0": "t['x'].sigmoid()",
    "SigmoidBackwardBackward0": _sigmoid_double,
    "SignBackward0": "t['x'].sign()",
    "SgnBackward0": "t['x'].sgn() * t['y']",
    "SiluBackward0": f"{F}.silu(t['x'])",
    "SinBackward0": "t['x'].sin()",
    "SliceBackward0": "t['x'][1:]",
    "SliceBackwardBackward0": _slice_double,
    "SoftmaxBackward0": "t['x'].softmax(1)",
    "SoftplusBackward0": f"{F}.softplus(t['x'])",
    "SplitBackward0": "t['x'].split(2)[1]",
    "SplitWithSizesBackward0": "t['x'].split([1, 2])[1]",
    "SqrtBackward0": "t['pos'].sqrt()",
    "SqueezeBackward0": "t['x4'].squeeze()",
    "SqueezeBackward1": "t['x4'].squeeze(0)",
    "SqueezeBackward2": "t['x4'].squeeze((0, 2))",
    "SqueezeBackward4": "t['v'] @ t['w']",
    "StackBackward0": "lib.stack([t['x'], t['y']], 1)",
    "StdBackward0": "t['x'].std(1)",
    "SafeSoftmaxBackward0": f"{F}.scaled_dot_product_attention(t['x'], t['y'], t['x'])",
    "ScaledDotProductFlashAttentionForCpuBackward0":
        f"{F}.scaled_dot_product_attention(t['x4'], t['x4'] * 2, t['x4'], is_causal=True)",
    "SmoothL1LossBackward0": f"{F}.smooth_l1_loss(t['x'], t['y'], beta=0.4)",
    "SmoothL1LossBackwardBackward0": _pointwise_double("smooth_l1_loss", beta=0.4),
    "SubBackward0": "t['x'] - t['y']",
    "SumBackward0": "t['x'].sum()",
    "SumBackward1": "t['x'].sum(1)",
    "TBackward0": "t['x'].t()",
    "TanhBackward0": "t['x'].tanh()",
    "TanhBackwardBackward0": _tanh_double,
    "NllLossBackwardBackward0": _nll_double,
    "NllLoss2DBackwardBackward0": _nll2d_double,
    "SoftmaxBackwardDataBackward0": _softmax_double,
    "MseLossBackwardBackward0": _mse_double,
    "LeakyReluBackwardBackward0": _leaky_relu_double,
    "SoftplusBackwardBackward0": _softplus_double,
    "LogSoftmaxBackwardDataBackward0": _log_softmax_double,
    "ThresholdBackwardBackward0": _relu_double,
    "ToCopyBackward0": "t['x'].float()",
    "TransposeBackward0": "t['a3'].transpose(0, 2)",
    "MkldnnRnnLayerBackward0": _lstm_fused,
    "TransposeBackward1": _gru_batch_first,
    "UnbindBackward0": "t['x'].unbind(0)[2]",
    "UnsafeSplitBackward0": _gru_batch_first,
    "UnsafeViewBackward0": "t['a3'] @ t['w']",
    "UnsqueezeBackward0": "t['x'].unsqueeze(1)",
    "UpsampleBilinear2DBackward0": f"{F}.interpolate(t['img'], scale_factor=1.5, mode='bilinear')",
    "UpsampleLinear1DBackward0":
        f"{F}.interpolate(t['a3'], size=7, mode='linear', align_corners=True)",
    "UpsampleNearest1DBackward0": f"{F}.interpolate(t['a3'], scale_factor=2.5)",
    "UpsampleNearest2DBackward0": f"{F}.interpolate(t['img'], size=(4, 9))",
    "UpsampleNearest3DBackward0": f"{F}.interpolate(t['img'][None], scale_factor=(2, 1, 0.5))",
    "VarBackward0": "t['x'].var()",
    "ViewBackward0": "t['x'].view(12)",
    "WhereBackward0": "lib.where(t['x'] > 0, t['x'], t['y'])",
    "XlogyBackward0": f"{F}.kl_div(t['x'], t['pos'], reduction='sum')",
    "ZeroBackward0": _zero,
    # issue 19: flips, triangles, diagonals, in-place view ops
    "FlipBackward0": "t['x'].flip(0, -1)",
    "RollBackward0": "t['x'].roll((1, -1), (0, 1))",
    "TrilBackward0": "t['x'].tril(1)",
    "TriuBackward0": "t['x'].triu(-1)",
    "DiagonalBackward0": "t['x'].diagonal(1)",
    "DiagonalBackward0_copy": "t['x'].diag(-1)",
    "DiagonalBackwardBackward0": _diagonal_double,
    "DiagEmbedBackward0": "t['v'].diag(1)",
    "TraceBackward0": "t['x'].trace()",
    "TBackward1": _inplace_meta("t_"),
    "UnsqueezeBackward1": _inplace_meta("unsqueeze_", -1),
    "SqueezeBackward3": _inplace_meta("squeeze_", key="x4"),
    "SqueezeBackward5": _inplace_meta("squeeze_", (0, 2), key="x4"),
    # issue 19: products
    "AddmvBackward0": "lib.addmv(t['b'][:3], t['x'], t['v'], beta=0.5, alpha=2)",
    "BaddbmmBackward0": "lib.baddbmm(t['b'], t['a3'], t['b3'], alpha=2)",
    "AddbmmBackward0": "lib.addbmm(t['b'], t['a3'], t['b3'], beta=2)",
    "LinalgCrossBackward0": "lib.cross(t['x'][:, :3], t['y'][:, :3], dim=1)",
    # issue 19: sorting
    "AsStridedBackward1": _inplace_meta("as_strided_", (2, 2), (1, 2)),
    "SortBackward0": "t['x'].sort(1, descending=True).values",
    "SortBackward1": "lib.sort(t['x'], stable=True, dim=0).values",
    "TopkBackward0": "t['x'].topk(2).values",
    "KthvalueBackward0": "t['x'].kthvalue(2, 0).values",
    "MedianBackward0": "t['x'].median()",
    "MedianBackward1": "t['x'].median(1, keepdim=True).values",
    "NanmedianBackward0": "t['x'].nanmedian()",
    "NanmedianBackward1": "t['x'].nanmedian(0).values",
    "ModeBackward0": "t['x'].mode(1).values",
    # issue 19: dim / mask indexing
    "GatherBackward0": "t['x'].gather(1, lib.tensor([[0, 0], [3, 1], [2, 2]]))",
    "ScatterBackward0": "t['x'].scatter(1, lib.tensor([[0], [3], [2]]), t['y'][:, :1])",
    "ScatterBackward1": "t['x'].scatter(1, lib.tensor([[0], [3], [2]]), 1.5)",
    "ScatterAddBackward0": "t['x'].scatter_add(0, lib.tensor([[0, 0, 2, 2]]), t['y'][:1])",
    "ScatterReduceBackward0": "t['x'].scatter_reduce(0, lib.tensor([[0, 0, 2, 2]]), "
                              "t['y'][:1], 'amax')",
    "IndexSelectBackward0": "t['x'].index_select(1, lib.tensor([3, 0, 3]))",
    "IndexAddBackward0": "t['x'].index_add(0, lib.tensor([2, 2]), t['y'][:2], alpha=2)",
    "IndexCopyBackward0": "t['x'].index_copy(0, lib.tensor([2, 0]), t['y'][:2])",
    "IndexFillBackward0": "t['x'].index_fill(1, lib.tensor([1]), 2.0)",
    "IndexFillBackward1": "t['x'].index_fill(1, lib.tensor([1]), t['v'][0])",
    "MaskedSelectBackward0": "t['x'].masked_select(t['y'] > 0)",
    "MaskedScatterBackward0": "t['x'].masked_scatter(t['y'] > 0, t['pos'])",
    "TakeBackward0": "t['x'].take(lib.tensor([0, 11, 5, 5]))",
    "PutBackward0": "t['x'].put(lib.tensor([0, 11]), t['v'][:2])",
    "Rot90Backward0": "t['a3'].rot90(1, (2, 0))",
    # issue 19: pointwise
    "Log1PBackward0": "t['pos'].log1p()",
    "Expm1Backward0": "t['x'].expm1()",
    "Log2Backward0": "t['pos'].log2()",
    "Log10Backward0": "t['pos'].log10()",
    "Exp2Backward0": "t['x'].exp2()",
    "TanBackward0": "t['x'].tanh().tan()",
    "AsinBackward0": "t['x'].tanh().asin()",
    "AcosBackward0": "t['x'].tanh().acos()",
    "AtanBackward0": "t['x'].atan()",
    "SinhBackward0": "t['x'].sinh()",
    "CoshBackward0": "t['x'].cosh()",
    "AsinhBackward0": "t['x'].asinh()",
    "AcoshBackward0": "(t['pos'] + 1).acosh()",
    "AtanhBackward0": "t['x'].tanh().atanh()",
    "TruncBackward0": "(t['x'] * 3).trunc() * t['y']",
    "FracBackward0": "(t['x'] * 3).frac()",
    "RoundBackward1": "t['x'].round(decimals=1) * t['y']",
    "NanToNumBackward0": "(t['x'] / t['y']).nan_to_num()",
    "ClampMaxBackward0": "t['x'].clamp_max(0.1)",
    "ClampMaxBackward1": "t['x'].clamp_max(t['v'])",
    "ClampMinBackward1": "lib.clamp_min(t['x'], t['y'])",
    "FmodBackward0": "t['x'].fmod(0.7)",
    "FmodBackward1": "t['x'].fmod(t['pos'])",
    "RemainderBackward0": "t['x'].remainder(0.7)",
    "RemainderBackward1": "t['x'] % t['pos']",
    "HypotBackward0": "t['x'].hypot(t['v'])",
    "Atan2Backward0": "lib.atan2(t['x'], t['y'])",
    "FmaxBackward0": "t['x'].fmax(t['y'])",
    "FminBackward0": "lib.fmin(t['x'], t['v'])",
    "SubBackward1": _acosh_double,
    "BinaryCrossEntropyBackwardBackward0": _bce_double,
    "EqBackward0": "(t['x'] * 1).eq_(0.1) * t['y']",
    "EqBackward1": "(t['x'] * 1).eq_(t['v']) * t['y']",
    "NeBackward0": "(t['x'] * 1).ne_(0.1) * t['y']",
    "NeBackward1": "(t['x'] * 1).ne_(t['v']) * t['y']",
    "LtBackward0": "(t['x'] * 1).lt_(0.1) * t['y']",
    "LtBackward1": "(t['x'] * 1).lt_(t['v']) * t['y']",
    "LeBackward0": "(t['x'] * 1).le_(0.1) * t['y']",
    "LeBackward1": "(t['x'] * 1).le_(t['v']) * t['y']",
    "GtBackward0": "(t['x'] * 1).gt_(0.1) * t['y']",
    "GtBackward1": "(t['x'] * 1).gt_(t['v']) * t['y']",
    "GeBackward0": "(t['x'] * 1).ge_(0.1) * t['y']",
    "GeBackward1": "(t['x'] * 1).ge_(t['v']) * t['y']",
    "DivBackward2": "lib.div(t['x'], t['pos'], rounding_mode='floor') * t['y']",
    # issue 19: reductions and norms
    "ProdBackward0": "t['x'].prod()",
    "ProdBackward1": "t['x'].prod(-1)",
    "CumsumBackward0": "t['x'].cumsum(1)",
    "CumprodBackward0": "t['x'].cumprod(0)",
    "LogcumsumexpBackward0": "t['x'].logcumsumexp(-1)",
    "VarMeanBackward0": "lib.var_mean(t['x'], 1)[0] * lib.var_mean(t['x'], 1)[1]",
    "StdMeanBackward0": "sum(lib.std_mean(t['a3'], (0, 2)))",
    "LinalgVectorNormBackward0": "t['x'].norm(dim=1)",
    "NormBackward1": f"{F}.pairwise_distance(t['x'], t['y'])",
    "BinaryCrossEntropyBackward0": f"{F}.binary_cross_entropy(t['x'].sigmoid(), "
                                   "t['y'].sigmoid())",
    "BinaryCrossEntropyWithLogitsBackward0": f"{F}.binary_cross_entropy_with_logits("
                                             "t['x'], t['y'].sigmoid())",
}
# Random ops: values differ between the libraries (NumPy's generator), so each is multiplied
# by 0; the node, its edges and its zero gradients are compared.
CASES.update({
    "UniformBackward0": "(t['x'] * 1).uniform_() * 0",
    "NormalBackward0": "(t['x'] * 1).normal_() * 0",
    "NormalBackward1": "lib.normal(t['x'], 1.0) * 0",
    "NormalBackward2": "lib.normal(0.0, t['pos']) * 0",
    "NormalBackward3": "lib.normal(t['x'], t['pos']) * 0",
    "BernoulliBackward0": "lib.bernoulli(lib.sigmoid(t['x'])) * 0",
    "BernoulliBackward1": "(t['x'] * 1).bernoulli_(lib.sigmoid(t['y'])) * 0",
    "BernoulliBackward2": "(t['x'] * 1).bernoulli_(0.3) * 0",
    "RandomBackward0": "(t['x'] * 1).random_(1, 5) * 0",
    "RandomBackward1": "(t['x'] * 1).random_(5) * 0",
    "RandomBackward2": "(t['x'] * 1).random_() * 0",
    "ExponentialBackward0": "(t['x'] * 1).exponential_() * 0",
    "LinalgSvdBackward0": "lib.linalg.matrix_norm(t['x'], 'nuc')",
})


def _grad_of(expr, wrt):
    """The create_graph gradient of ``expr(lib, t) ** 2`` with respect to ``t[wrt]``."""
    def case(lib, t):
        return lib.autograd.grad((expr(lib, t) ** 2).sum(), t[wrt], create_graph=True)[0]
    return case


# Double-backward nodes of the convolutions and upsamplings (tests/parity/
# test_conv_double_backward.py has the full second- and third-order checks).
CASES.update({
    "ConvolutionBackwardBackward0": _grad_of(
        lambda lib, t: lib.nn.functional.conv2d(t["img"], t["k"], padding=1), "k"),
    "UpsampleBilinear2DBackwardBackward0": _grad_of(
        lambda lib, t: lib.nn.functional.interpolate(t["img"], scale_factor=1.5,
                                                     mode="bilinear"), "img"),
    "UpsampleLinear1DBackwardBackward0": _grad_of(
        lambda lib, t: lib.nn.functional.interpolate(t["a3"], size=7, mode="linear"), "a3"),
    "UpsampleNearest1DBackwardBackward0": _grad_of(
        lambda lib, t: lib.nn.functional.interpolate(t["a3"], scale_factor=2.5), "a3"),
    "UpsampleNearest2DBackwardBackward0": _grad_of(
        lambda lib, t: lib.nn.functional.interpolate(t["img"], size=(4, 9)), "img"),
    "UpsampleNearest3DBackwardBackward0": _grad_of(
        lambda lib, t: lib.nn.functional.interpolate(t["img"][None], scale_factor=2), "img"),
})
# Recorded by PyTorch inside another node and never reachable through next_functions.
HIDDEN = {"IndexPutImplBackward0": "IndexPutBackward0",
          # nodes whose backward raises (no derivative in PyTorch either); tested in
          # test_ops_pointwise_more.py::test_not_differentiable
          "AsinhBackward1": "asinh_", "AcoshBackward1": "acosh_", "AtanhBackward1": "atanh_",
          # gradcheck's own probe node (check_undefined_grad); tested in test_gradcheck.py
          "UndefinedGradBackward": "gradcheck",
          # not differentiable: backward raises, as PyTorch's; tested in
          # test_ops_indexing_more.py::test_unique_is_not_differentiable
          "Unique2Backward0": "unique", "UniqueDimBackward0": "unique",
          "UniqueConsecutiveBackward0": "unique"}


def _scenario(lib, case):
    t = _inputs(lib)
    out = case(lib, t) if callable(case) else eval(case, {"lib": lib, "t": t, "np": np})
    trace = {"graph": graph_trace(out), "value": to_numpy(out)}
    weights = lib.tensor(np.random.default_rng(11).standard_normal(tuple(out.shape)))
    leaves = list(t.values())
    grads = lib.autograd.grad((out * weights).sum(), leaves, allow_unused=True)
    trace["grads"] = {k: to_numpy(g) for k, g in zip(t, grads)}
    return trace


# cases computed in float32 (a kernel PyTorch has for float32 only): float32 tolerances
FLOAT32_CASES = {"MkldnnRnnLayerBackward0": (1e-5, 1e-6)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_parity(name, libs):
    mg, torch = libs
    ours, theirs = _scenario(mg, CASES[name]), _scenario(torch, CASES[name])
    names = {n for n, _ in theirs["graph"]}
    assert name in names, f"the program for {name} does not make torch record it: {names}"
    rtol, atol = FLOAT32_CASES.get(name, (1e-6, 1e-8))
    compare(ours, theirs, name, rtol=rtol, atol=atol)


def _defined_nodes() -> set:
    root = pathlib.Path(__file__).resolve().parents[2] / "minigrad"
    found = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and (
                    re.fullmatch(r"\w+Backward\d*", node.name)
                    or node.name in ("CopyBackwards", "CopySlices")):
                found.add(node.name)
    return found


def test_every_node_class_is_covered():
    missing = _defined_nodes() - set(CASES) - set(HIDDEN)
    assert not missing, f"node classes without a coverage row: {sorted(missing)}"
