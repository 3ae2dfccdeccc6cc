"""Parity of forward-mode AD through the nn ops and modules (issue 23): convolutions (1-D, 2-D,
3-D, transposed, groups, stride/padding/dilation, ``'same'``), batch norm (training with and
without running statistics, eval), layer, group and instance norm, max/avg/adaptive pools,
upsampling, embedding, ``_safe_softmax``, scaled dot-product attention and LSTM (PyTorch's own
errors where it has no formula: the fused CPU attention kernel, ``mkldnn_rnn_layer``),
forward-over-reverse through the double-backward nodes, and modules with tangents on their
inputs and on their parameters (``del module.weight; module.weight = make_dual(...)``, as
PyTorch's forward-AD tutorial does).

Each op is checked in float64 (values, tangent values/dtype/strides/requires_grad against
PyTorch, PyTorch's tangent against finite differences) and float32. A case that reaches a node
of another op family whose formula minigrad does not have yet (matmul, softmax, cat, ...) is
skipped with that node's name (`_skip_other_families`); it runs as soon as the formula lands.
"""

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, to_numpy
from minigrad.parity import capture_error as _capture
from tests.parity._forward_ad import _tangent_data, check_jvp

F32 = {"dtype": "float32", "rtol": 2e-5, "atol": 2e-5, "fd": False}
_GAP = "implemented yet in minigrad"


def _rng(seed):
    return np.random.default_rng(seed)


def capture_error(fn):
    got = _capture(fn)
    return got and (got[0], got[1].replace("minigrad.", "torch."))


def _skip_other_families(fn, primals, tangents, dtype="float64"):
    """Skip when minigrad stops at a node without a formula (another op family's, not yet
    written): its NotImplementedError names the node."""
    fwAD = minigrad.autograd.forward_ad
    dt = getattr(minigrad, dtype)
    with fwAD.dual_level():
        duals = []
        for p, t in zip(primals, tangents):
            if not isinstance(p, np.ndarray):
                duals.append(p)
                continue
            x = minigrad.tensor(p, dtype=dt if p.dtype.kind == "f" else None)
            duals.append(x if t is None else fwAD.make_dual(x, minigrad.tensor(t, dtype=dt)))
        try:
            fn(minigrad, *duals)
        except NotImplementedError as e:
            if _GAP in str(e):
                pytest.skip(f"another family's formula is missing: {e}")
        except Exception:  # noqa: BLE001 - the parity check reports it
            pass


def check(fn, primals, tangents, float32=True, **kw):
    """`check_jvp` in float64 (with finite differences) and in float32."""
    _skip_other_families(fn, primals, tangents)
    check_jvp(fn, primals, tangents, **kw)
    if float32:
        kw.pop("fd", None)
        check_jvp(fn, primals, tangents, **{**kw, **F32})


def tangent_sets(primals, seed):
    """Tangents for every float primal at once, then for each one alone."""
    rng = _rng(seed)
    floats = [i for i, p in enumerate(primals) if isinstance(p, np.ndarray) and p.dtype.kind == "f"]
    full = [rng.standard_normal(p.shape) if i in floats else None for i, p in enumerate(primals)]
    sets = [full]
    if len(floats) > 1:
        sets += [[t if i == j else None for i, t in enumerate(full)] for j in floats]
    return sets


def F(lib):
    return lib.nn.functional


# ----------------------------------------------------------------------------- convolutions
def _arrays(seed, *shapes):
    rng = _rng(seed)
    return [None if s is None else rng.standard_normal(s) for s in shapes]


CONV = {
    "conv2d_stride_pad": (
        lambda lib, x, w, b: F(lib).conv2d(x, w, b, stride=2, padding=1),
        ((2, 3, 6, 6), (4, 3, 3, 3), (4,)),
    ),
    "conv2d_groups_dilation": (
        lambda lib, x, w, b: F(lib).conv2d(x, w, b, dilation=2, groups=2, stride=(1, 2)),
        ((1, 4, 7, 7), (6, 2, 3, 3), (6,)),
    ),
    "conv2d_same_even_kernel": (
        lambda lib, x, w: F(lib).conv2d(x, w, padding="same"),
        ((1, 2, 5, 5), (3, 2, 2, 2)),
    ),
    "conv2d_valid": (
        lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding="valid"),
        ((2, 2, 4, 5), (3, 2, 2, 3), (3,)),
    ),
    "conv2d_unbatched": (
        lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1),
        ((3, 5, 5), (2, 3, 3, 3), (2,)),
    ),
    "conv2d_transposed_input": (
        lambda lib, x, w: F(lib).conv2d(x.transpose(2, 3), w),
        ((2, 3, 5, 4), (2, 3, 2, 2)),
    ),
    "conv2d_empty_batch": (
        lambda lib, x, w, b: F(lib).conv2d(x, w, b),
        ((0, 3, 5, 5), (4, 3, 3, 3), (4,)),
    ),
    "conv1d": (
        lambda lib, x, w, b: F(lib).conv1d(x, w, b, stride=2, padding=1, groups=2),
        ((2, 4, 9), (6, 2, 3), (6,)),
    ),
    "conv1d_same": (
        lambda lib, x, w, b: F(lib).conv1d(x, w, b, padding="same", dilation=1),
        ((2, 2, 7), (3, 2, 4), (3,)),
    ),
    "conv3d": (
        lambda lib, x, w, b: F(lib).conv3d(x, w, b, stride=(1, 2, 1), padding=1),
        ((1, 2, 4, 4, 4), (3, 2, 2, 3, 2), (3,)),
    ),
    "conv_transpose1d": (
        lambda lib, x, w, b: F(lib).conv_transpose1d(x, w, b, stride=2, output_padding=1),
        ((2, 3, 5), (3, 2, 3), (2,)),
    ),
    "conv_transpose2d": (
        lambda lib, x, w, b: F(lib).conv_transpose2d(
            x, w, b, stride=2, padding=1, output_padding=1, groups=2
        ),
        ((1, 4, 3, 3), (4, 2, 3, 3), (4,)),
    ),
    "conv_transpose2d_dilation": (
        lambda lib, x, w: F(lib).conv_transpose2d(x, w, dilation=2, padding=(0, 1)),
        ((2, 2, 3, 4), (2, 3, 2, 3)),
    ),
    "conv_transpose3d": (
        lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b, stride=2),
        ((1, 2, 2, 3, 2), (2, 3, 2, 2, 2), (3,)),
    ),
}


@pytest.mark.parametrize("name", list(CONV))
def test_convolutions(name):
    fn, shapes = CONV[name]
    primals = _arrays(len(name), *shapes)
    for i, tangents in enumerate(tangent_sets(primals, len(name))):
        check(fn, primals, tangents, float32=i == 0)


def test_conv_bias_tangent_alone_and_no_grad():
    """Only the bias is dual (its tangent broadcast over the output); then all under
    no_grad, with primals requiring grad (the tangent does not require grad there)."""
    x, w, b = _arrays(1, (2, 3, 5, 5), (4, 3, 3, 3), (4,))
    check(lambda lib, x, w, b: F(lib).conv2d(x, w, b), [x, w, b], [None, None, b * 2])

    def under_no_grad(lib, x, w, b):
        with lib.no_grad():
            return F(lib).conv2d(x, w, b, stride=2)

    check(under_no_grad, [x, w, b], tangent_sets([x, w, b], 3)[0], primal_grad=True)


@pytest.mark.parametrize("name", ["conv2d_stride_pad", "conv1d", "conv_transpose2d"])
def test_conv_tangent_requires_grad(name):
    """Primals requiring grad: the tangent is differentiable (reverse over forward), as
    PyTorch's (its requires_grad is compared)."""
    fn, shapes = CONV[name]
    primals = _arrays(7, *shapes)
    for tangents in tangent_sets(primals, 7):  # (one alone: PyTorch's zero terms count)
        check(fn, primals, tangents, primal_grad=True, float32=False)


# ----------------------------------------------------------------------------- normalization
def _with_stats(lib, fn, x, rm, rv, **kw):
    """``fn(x, running_mean, running_var, **kw)`` and the statistics after it."""
    rm_t, rv_t = lib.tensor(rm, dtype=x.dtype), lib.tensor(rv, dtype=x.dtype)
    return fn(x, rm_t, rv_t, **kw), rm_t, rv_t


def _bn_train_stats(lib, x, w, b, rm, rv):
    """Training with running statistics: they are updated (no tangent) as without AD."""
    rm_t, rv_t = lib.tensor(rm, dtype=x.dtype), lib.tensor(rv, dtype=x.dtype)
    out = F(lib).batch_norm(x, rm_t, rv_t, w, b, training=True, momentum=0.3)
    return out, rm_t, rv_t


NORM = {
    "batch_norm_train": (
        lambda lib, x, w, b: F(lib).batch_norm(x, None, None, w, b, True),
        ((4, 3, 5), (3,), (3,)),
    ),
    "batch_norm_train_4d_no_affine": (
        lambda lib, x: F(lib).batch_norm(x, None, None, training=True, eps=1e-3),
        ((3, 2, 3, 4),),
    ),
    "batch_norm_train_2d": (
        lambda lib, x, w: F(lib).batch_norm(x, None, None, w, None, True),
        ((5, 3), (3,)),
    ),
    "batch_norm_train_running_stats": (_bn_train_stats, ((4, 3, 2, 2), (3,), (3,), "rm", "rv")),
    "batch_norm_eval": (
        lambda lib, x, w, b, rm, rv: F(lib).batch_norm(
            x, lib.tensor(rm, dtype=x.dtype), lib.tensor(rv, dtype=x.dtype), w, b, False
        ),
        ((4, 3, 5), (3,), (3,), "rm", "rv"),
    ),
    "batch_norm_channels_last": (
        lambda lib, x, w, b: F(lib).batch_norm(x.permute(0, 3, 1, 2), None, None, w, b, True),
        ((2, 3, 4, 3), (3,), (3,)),
    ),
    "layer_norm": (lambda lib, x, w, b: F(lib).layer_norm(x, (5,), w, b), ((2, 3, 5), (5,), (5,))),
    "layer_norm_2d_shape": (
        lambda lib, x, w, b: F(lib).layer_norm(x, (3, 4), w, b, eps=1e-2),
        ((2, 3, 4), (3, 4), (3, 4)),
    ),
    "layer_norm_no_weight_transposed": (
        lambda lib, x, b: F(lib).layer_norm(x.transpose(0, 1), (3,), None, b),
        ((3, 4), (3,)),
    ),
    "group_norm": (lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b), ((3, 4, 5), (4,), (4,))),
    "group_norm_4d": (
        lambda lib, x, w, b: F(lib).group_norm(x, 3, w, b, eps=1e-3),
        ((2, 6, 2, 3), (6,), (6,)),
    ),
    "group_norm_no_affine": (lambda lib, x: F(lib).group_norm(x, 1), ((2, 3, 4),)),
    "layer_norm_empty": (lambda lib, x, w: F(lib).layer_norm(x, (3,), w), ((0, 3), (3,))),
    "group_norm_empty_batch": (lambda lib, x, w: F(lib).group_norm(x, 2, w), ((0, 4, 3), (4,))),
    "instance_norm": (lambda lib, x: F(lib).instance_norm(x), ((2, 3, 5),)),
    "instance_norm_affine": (
        lambda lib, x, w, b: F(lib).instance_norm(x, weight=w, bias=b),
        ((2, 3, 2, 3), (3,), (3,)),
    ),
    "instance_norm_running_stats": (
        lambda lib, x, rm, rv: _with_stats(
            lib, F(lib).instance_norm, x, rm, rv, use_input_stats=True, momentum=0.2
        ),
        ((2, 3, 4), "rm", "rv"),
    ),
    "instance_norm_eval_stats": (
        lambda lib, x, rm, rv: _with_stats(
            lib, F(lib).instance_norm, x, rm, rv, use_input_stats=False
        ),
        ((2, 3, 4), "rm", "rv"),
    ),
}


def _norm_primals(name, shapes):
    rng = _rng(len(name) + 100)
    out = []
    for s in shapes:
        if s == "rm":
            out.append(rng.standard_normal(3))
        elif s == "rv":
            out.append(rng.uniform(0.5, 2.0, 3))
        else:
            out.append(rng.standard_normal(s))
    return out


@pytest.mark.parametrize("name", list(NORM))
def test_normalization(name):
    fn, shapes = NORM[name]
    primals = _norm_primals(name, shapes)
    stats = [s in ("rm", "rv") for s in shapes]
    # the running statistics are plain tensors inside fn (never dual)
    prim = [p for p, s in zip(primals, stats) if not s]
    rest = [p for p, s in zip(primals, stats) if s]

    def run(lib, *args):
        return fn(lib, *args, *rest)

    for i, tangents in enumerate(tangent_sets(prim, len(name))):
        check(run, prim, tangents, float32=i == 0)


def test_normalization_primal_grad_and_no_grad():
    x, w, b = _arrays(5, (4, 3, 5), (3,), (3,))
    rm, rv = _norm_primals("stats", ("rm", "rv"))
    tangents = tangent_sets([x, w, b], 5)[0]
    for fn in (
        lambda lib, x, w, b: F(lib).batch_norm(x, None, None, w, b, True),
        lambda lib, x, w, b: F(lib).batch_norm(x, lib.tensor(rm), lib.tensor(rv), w, b, False),
        lambda lib, x, w, b: F(lib).batch_norm(x, lib.tensor(rm), lib.tensor(rv)),
        lambda lib, x, w, b: F(lib).group_norm(x, 3, w, b),
    ):
        for tangents_ in tangent_sets([x, w, b], 6):  # (PyTorch's zero terms count)
            check(fn, [x, w, b], tangents_, primal_grad=True, float32=False)
    x3, w2 = _arrays(8, (3, 4, 5), (4, 5))
    for tangents_ in tangent_sets([x3, w2], 8):
        check(
            lambda lib, x, w: F(lib).layer_norm(x, (4, 5), w, None),
            [x3, w2],
            tangents_,
            primal_grad=True,
            float32=False,
        )

    def under_no_grad(lib, x, w, b):
        with lib.no_grad():
            return F(lib).group_norm(x, 3, w, b)

    check(under_no_grad, [x, w, b], tangents, primal_grad=True)


# ----------------------------------------------------------------------------- pooling
POOL = {
    "max_pool2d": (lambda lib, x: F(lib).max_pool2d(x, 3, 2, 1, return_indices=True), (2, 3, 6, 6)),
    "max_pool2d_dilation_ceil": (
        lambda lib, x: F(lib).max_pool2d(x, 2, (1, 2), dilation=2, ceil_mode=True),
        (1, 2, 7, 6),
    ),
    "max_pool2d_unbatched_transposed": (
        lambda lib, x: F(lib).max_pool2d(x.transpose(1, 2), 2),
        (3, 4, 6),
    ),
    "avg_pool2d": (lambda lib, x: F(lib).avg_pool2d(x, 3, 2, 1), (2, 3, 6, 6)),
    "avg_pool2d_no_pad_count_ceil": (
        lambda lib, x: F(lib).avg_pool2d(x, 2, 2, 1, ceil_mode=True, count_include_pad=False),
        (1, 2, 5, 5),
    ),
    "avg_pool2d_divisor": (lambda lib, x: F(lib).avg_pool2d(x, 2, divisor_override=3), (2, 4, 4)),
    "adaptive_avg_pool2d": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, (4, 3)), (2, 3, 6, 7)),
    "adaptive_avg_pool2d_unbatched": (
        lambda lib, x: F(lib).adaptive_avg_pool2d(x, (2, None)),
        (3, 5, 4),
    ),
    "adaptive_avg_pool2d_1x1": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, 1), (2, 3, 4, 4)),
    "adaptive_max_pool2d": (
        lambda lib, x: F(lib).adaptive_max_pool2d(x, (4, 3), True),
        (2, 3, 6, 7),
    ),
    "adaptive_max_pool2d_unbatched": (lambda lib, x: F(lib).adaptive_max_pool2d(x, 2), (3, 5, 5)),
    "max_pool2d_empty_batch": (lambda lib, x: F(lib).max_pool2d(x, 2), (0, 2, 4, 4)),
    "avg_pool2d_empty_batch": (lambda lib, x: F(lib).avg_pool2d(x, 2), (0, 2, 4, 4)),
    "adaptive_max_pool2d_empty_batch": (
        lambda lib, x: F(lib).adaptive_max_pool2d(x, 3),
        (0, 2, 4, 4),
    ),
}


@pytest.mark.parametrize("name", list(POOL))
def test_pooling(name):
    fn, shape = POOL[name]
    (x,) = _arrays(len(name) + 200, shape)
    check(fn, [x], tangent_sets([x], 1)[0])


def test_pooling_primal_grad_and_no_grad():
    (x,) = _arrays(9, (2, 3, 6, 6))
    (t,) = tangent_sets([x], 9)[0]
    for fn in (POOL["max_pool2d"][0], POOL["avg_pool2d"][0], POOL["adaptive_max_pool2d"][0]):
        check(fn, [x], [t], primal_grad=True, float32=False)

    def under_no_grad(lib, x):
        with lib.no_grad():
            return F(lib).max_pool2d(x, 2), F(lib).adaptive_avg_pool2d(x, 4)

    check(under_no_grad, [x], [t], primal_grad=True)


# ----------------------------------------------------------------------------- upsampling
UPSAMPLE = {
    "nearest1d": (lambda lib, x: F(lib).interpolate(x, scale_factor=2.5), (2, 3, 4)),
    "nearest2d_size": (lambda lib, x: F(lib).interpolate(x, size=(4, 9)), (1, 2, 3, 5)),
    "nearest3d": (lambda lib, x: F(lib).interpolate(x, scale_factor=(1, 2, 1.5)), (1, 2, 2, 3, 2)),
    "linear": (
        lambda lib, x: F(lib).interpolate(x, scale_factor=2, mode="linear", align_corners=True),
        (2, 3, 4),
    ),
    "bilinear": (
        lambda lib, x: F(lib).interpolate(x, scale_factor=1.7, mode="bilinear"),
        (2, 2, 4, 3),
    ),
    "bilinear_transposed_size": (
        lambda lib, x: F(lib).interpolate(
            x.transpose(2, 3), size=(5, 2), mode="bilinear", align_corners=False
        ),
        (1, 2, 3, 4),
    ),
}


@pytest.mark.parametrize("name", list(UPSAMPLE))
def test_upsampling(name):
    fn, shape = UPSAMPLE[name]
    (x,) = _arrays(len(name) + 300, shape)
    check(fn, [x], tangent_sets([x], 2)[0])
    check(fn, [x], tangent_sets([x], 3)[0], primal_grad=True, float32=False)


# ----------------------------------------------------------------------------- embedding
EMBEDDING = {
    "plain": lambda lib, w: F(lib).embedding(lib.tensor([[0, 2], [4, 2]]), w),
    "padding_idx": lambda lib, w: F(lib).embedding(lib.tensor([1, 3, 3, 0]), w, padding_idx=3),
    "max_norm": lambda lib, w: F(lib).embedding(lib.tensor([0, 4]), w, max_norm=1.0),
    "scale_grad_by_freq": lambda lib, w: F(lib).embedding(
        lib.tensor([2, 2, 1]), w, scale_grad_by_freq=True
    ),
    "transposed_weight": lambda lib, w: F(lib).embedding(lib.tensor([3, 0]), w.t()),
    "empty_indices": lambda lib, w: F(lib).embedding(lib.zeros(0, 2, dtype=lib.int64), w),
}


@pytest.mark.parametrize("name", list(EMBEDDING))
def test_embedding(name):
    w = _rng(17).standard_normal((5, 4)) * 2
    if name == "transposed_weight":
        w = w.T.copy()
    # (max_norm rescales rows of the primal in place: finite differences would see that)
    check(EMBEDDING[name], [w], tangent_sets([w], 4)[0], fd=name != "max_norm")
    check(EMBEDDING[name], [w], tangent_sets([w], 5)[0], primal_grad=True, float32=False, fd=False)


# ----------------------------------------------------------------------------- attention
def _safe_softmax(lib, x, dim=-1):
    if lib is minigrad:
        from minigrad._ops.attention import safe_softmax

        return safe_softmax(x, dim)
    return lib._safe_softmax(x, dim)


def test_safe_softmax():
    (x,) = _arrays(21, (3, 4, 5))
    check(lambda lib, x: _safe_softmax(lib, x, 1), [x], tangent_sets([x], 21)[0])
    masked = x.copy()
    masked[0, 1] = -np.inf  # a fully masked slice: its output and tangent are 0
    masked[1, 2, :2] = -np.inf
    check(lambda lib, x: _safe_softmax(lib, x), [masked], tangent_sets([x], 22)[0], fd=False)
    check(
        lambda lib, x: _safe_softmax(lib, x, 0),
        [x],
        tangent_sets([x], 23)[0],
        primal_grad=True,
        float32=False,
    )


def _sdpa(lib, q, k, v, **kw):
    return F(lib).scaled_dot_product_attention(q, k, v, **kw)


def test_sdpa_math_path():
    """3-D query/key/value take the math path (a composition with formulas)."""
    q, k, v = _arrays(31, (2, 3, 4), (2, 5, 4), (2, 5, 3))
    for i, tangents in enumerate(tangent_sets([q, k, v], 31)):
        check(_sdpa, [q, k, v], tangents, float32=i == 0)
    mask = _rng(32).standard_normal((3, 5))
    check(
        lambda lib, q, k, v: _sdpa(lib, q, k, v, attn_mask=lib.tensor(mask, dtype=q.dtype)),
        [q, k, v],
        tangent_sets([q, k, v], 33)[0],
    )


def _fused_errors(lib, dtype):
    """The fused CPU kernel (4-D inputs) has no forward formula in PyTorch: its error, with a
    dual query, key or value, also under no_grad."""
    fwAD = lib.autograd.forward_ad
    q, k, v = (
        lib.tensor(a, dtype=getattr(lib, dtype))
        for a in _arrays(41, (1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4))
    )
    out = []
    with fwAD.dual_level():
        for i in range(3):
            args = [q, k, v]
            args[i] = fwAD.make_dual(args[i], lib.ones_like(args[i]))
            out.append(capture_error(lambda args=args: _sdpa(lib, *args)))
        with lib.no_grad():
            out.append(
                capture_error(lambda: _sdpa(lib, fwAD.make_dual(q, q * 2), k, v, is_causal=True))
            )
        out.append(fwAD.unpack_dual(_sdpa(lib, q, k, v)).tangent is None)  # nothing dual
        for shape in ((3, 5), (1, 2, 3, 5)):  # a dual mask alone (no input of the node)
            m = lib.ones(*shape, dtype=q.dtype)
            out.append(
                capture_error(lambda m=m: _sdpa(lib, q, k, v, attn_mask=fwAD.make_dual(m, m * 3)))
            )
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sdpa_fused_has_no_forward_ad(dtype):
    assert_parity(_fused_errors, dtype)


# ----------------------------------------------------------------------------- LSTM
def _lstm_scenario(lib, dtype, dual):
    """nn.LSTM: float32 runs oneDNN's fused layer (PyTorch: no forward formula, its error),
    float64 the composition of ordinary ops. ``dual``: "input", "h0" or a parameter's name."""
    fwAD = lib.autograd.forward_ad
    dt = getattr(lib, dtype)
    lstm = lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=dt)
    rng = _rng(51)
    with lib.no_grad():
        for _, p in sorted(lstm.named_parameters()):
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=dt))
    x = lib.tensor(rng.standard_normal((5, 2, 3)), dtype=dt)
    h0 = lib.tensor(rng.standard_normal((4, 2, 4)), dtype=dt)
    c0 = lib.tensor(rng.standard_normal((4, 2, 4)), dtype=dt)
    with fwAD.dual_level():
        if dual == "input":
            x = fwAD.make_dual(x, lib.tensor(rng.standard_normal((5, 2, 3)), dtype=dt))
        elif dual == "h0":
            h0 = fwAD.make_dual(h0, lib.tensor(rng.standard_normal((4, 2, 4)), dtype=dt))
        else:
            _dual_parameter(
                lib, lstm, dual, rng.standard_normal(tuple(getattr(lstm, dual).shape)), dt
            )
        try:
            out, (hn, cn) = lstm(x, (h0, c0))
        except Exception as e:  # noqa: BLE001 - the error is compared
            return type(e).__name__, str(e).replace("minigrad.", "torch.")
        return [{"value": to_numpy(o), "tangent": _tangent_data(lib, o)} for o in (out, hn, cn)]


@pytest.mark.parametrize("dual", ["input", "h0", "weight_hh_l1_reverse"])
def test_lstm_float32_has_no_forward_ad(dual):
    got = assert_parity(_lstm_scenario, "float32", dual)[0]
    assert got[0] == "NotImplementedError" and "mkldnn_rnn_layer" in got[1]


def _lstm_without_onednn(lib, dual):
    with lib.backends.mkldnn.flags(enabled=False):  # (float32 then runs the composition)
        return _lstm_scenario(lib, "float32", dual)


@pytest.mark.parametrize("dual", ["input", "weight_hh_l0"])
def test_lstm_float32_without_onednn(dual):
    got = _lstm_without_onednn(minigrad, dual)
    if isinstance(got, tuple) and _GAP in got[1]:
        pytest.skip(f"another family's formula is missing: {got[1]}")
    assert_parity(_lstm_without_onednn, dual, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dual", ["input", "h0", "weight_ih_l0", "bias_hh_l1_reverse"])
def test_lstm_float64_composition(dual):
    got = _lstm_scenario(minigrad, "float64", dual)
    if isinstance(got, tuple) and _GAP in got[1]:
        pytest.skip(f"another family's formula is missing: {got[1]}")
    assert_parity(_lstm_scenario, "float64", dual, rtol=1e-7, atol=1e-9)


# ----------------------------------------------------------------------------- double backward
def _forward_over_reverse(lib, op, which, shapes):
    """Tangents through a gradient computed with create_graph (the double-backward nodes'
    formulas): ``which`` names the dual ones among the op's inputs ("0", "1", ...) and the
    incoming gradient ("g")."""
    fwAD = lib.autograd.forward_ad
    rng = _rng(61)
    arrays = [rng.standard_normal(s) for s in shapes]
    with fwAD.dual_level():
        prim = [lib.tensor(a, requires_grad=True) for a in arrays]
        xs = [
            fwAD.make_dual(p, lib.tensor(rng.standard_normal(p.shape))) if str(i) in which else p
            for i, p in enumerate(prim)
        ]
        y = op(lib, *xs)
        gy = lib.tensor(rng.standard_normal(tuple(y.shape)))
        if "g" in which:
            gy = fwAD.make_dual(gy, lib.tensor(rng.standard_normal(tuple(y.shape))))
        grads = lib.autograd.grad(y, prim, gy, create_graph=True)
        return [[to_numpy(g), _tangent_data(lib, g)] for g in grads]


DOUBLE = {
    "conv2d": (
        lambda lib, x, w, b: F(lib).conv2d(x, w, b, stride=2, padding=1),
        ((2, 2, 5, 5), (3, 2, 3, 3), (3,)),
    ),
    "conv1d_groups": (
        lambda lib, x, w: F(lib).conv1d(x, w, groups=2, dilation=2),
        ((2, 4, 7), (2, 2, 2)),
    ),
    "conv_transpose2d": (
        lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2),
        ((1, 2, 3, 3), (2, 3, 2, 2), (3,)),
    ),
    "upsample_nearest2d": (lambda lib, x: F(lib).interpolate(x, scale_factor=2), ((1, 2, 3, 3),)),
    "upsample_bilinear2d": (
        lambda lib, x: F(lib).interpolate(x, size=(5, 4), mode="bilinear"),
        ((1, 2, 3, 3),),
    ),
    "embedding": (
        lambda lib, w: F(lib).embedding(
            lib.tensor([0, 2, 0]), w, padding_idx=2, scale_grad_by_freq=True
        ),
        ((3, 4),),
    ),
    # (their create_graph backward is a composition of ordinary ops)
    "batch_norm": (
        lambda lib, x, w: F(lib).batch_norm(x, None, None, w, None, True),
        ((4, 3, 2), (3,)),
    ),
    "layer_norm": (lambda lib, x, w: F(lib).layer_norm(x, (2,), w), ((3, 2), (2,))),
    "group_norm": (lambda lib, x, w: F(lib).group_norm(x, 2, w), ((2, 4, 3), (4,))),
}


@pytest.mark.parametrize("name", list(DOUBLE))
def test_forward_over_reverse(name):
    op, shapes = DOUBLE[name]
    whichs = ["g"] + [str(i) for i in range(min(2, len(shapes)))]
    if len(shapes) > 1:
        whichs.append("01g")
    for which in whichs:
        try:
            _forward_over_reverse(minigrad, op, which, shapes)
        except NotImplementedError as e:
            if _GAP in str(e):
                pytest.skip(f"another family's formula is missing: {e}")
        assert_parity(_forward_over_reverse, op, which, shapes, rtol=1e-7, atol=1e-9)


# ----------------------------------------------------------------------------- modules
def _dual_parameter(lib, module, name, tangent, dt):
    """Make parameter ``name`` dual as PyTorch's tutorial does: delete it, set a dual tensor
    of its detached value in its place."""
    fwAD = lib.autograd.forward_ad
    *path, attr = name.split(".")
    mod = module
    for part in path:
        mod = getattr(mod, part)
    p = getattr(mod, attr)
    delattr(mod, attr)
    setattr(mod, attr, fwAD.make_dual(p.detach(), lib.tensor(tangent, dtype=dt)))


def _module_scenario(
    lib, build, x_shape, dual, dtype="float64", train=True, no_grad=False, int_input=None
):
    """``build(lib, dt)``'s module with seeded parameters (and buffers), run in a level with
    ``dual`` ("input" and/or parameter names) carrying tangents; returns each output's value
    and tangent, and the buffers after the run."""
    fwAD = lib.autograd.forward_ad
    dt = getattr(lib, dtype)
    rng = _rng(71)
    module = build(lib, dt)
    module.train(train)
    with lib.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=dt))
        for _, b in sorted(module.named_buffers()):
            if b.is_floating_point():
                b.copy_(lib.tensor(rng.uniform(0.5, 1.5, tuple(b.shape)), dtype=dt))
    if int_input is not None:
        x = lib.tensor(int_input)
    else:
        x = lib.tensor(rng.standard_normal(x_shape), dtype=dt)
    shapes = dict(module.named_parameters())
    with fwAD.dual_level():
        for name in dual:
            if name == "input":
                x = fwAD.make_dual(x, lib.tensor(rng.standard_normal(x_shape), dtype=dt))
            else:
                _dual_parameter(
                    lib, module, name, rng.standard_normal(tuple(shapes[name].shape)), dt
                )
        try:
            if no_grad:
                with lib.no_grad():
                    out = module(x)
            else:
                out = module(x)
        except Exception as e:  # noqa: BLE001 - the error is compared
            return type(e).__name__, str(e).replace("minigrad.", "torch.")
        outs = [o for o in _flat(out) if o is not None]
        res = [{"value": to_numpy(o), "tangent": _tangent_data(lib, o)} for o in outs]
    res.append({n: to_numpy(b) for n, b in sorted(module.named_buffers()) if b.is_floating_point()})
    return res


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _flat(item)]
    return [out]


def _small_cnn(lib, dt):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1, dtype=dt),
        nn.BatchNorm2d(4, dtype=dt),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 3, 2, dtype=dt),
        nn.AdaptiveAvgPool2d((2, 2)),
        nn.Flatten(),
        nn.Linear(12, 5, dtype=dt),
    )


MODULES = {
    "conv2d": (
        lambda lib, dt: lib.nn.Conv2d(3, 4, 3, stride=2, padding=1, dtype=dt),
        (2, 3, 6, 6),
        ["weight", "bias"],
    ),
    "batchnorm2d_train": (
        lambda lib, dt: lib.nn.BatchNorm2d(3, dtype=dt),
        (4, 3, 2, 3),
        ["weight", "bias"],
    ),
    "batchnorm2d_eval": (
        lambda lib, dt: lib.nn.BatchNorm2d(3, dtype=dt),
        (4, 3, 2, 3),
        ["weight", "bias"],
    ),
    "layernorm": (
        lambda lib, dt: lib.nn.LayerNorm((3, 4), dtype=dt),
        (2, 3, 4),
        ["weight", "bias"],
    ),
    "maxpool2d": (lambda lib, dt: lib.nn.MaxPool2d(3, 2, padding=1), (2, 2, 5, 5), []),
    "embedding": (
        lambda lib, dt: lib.nn.Embedding(6, 4, padding_idx=1, dtype=dt),
        None,
        ["weight"],
    ),
    "multihead_attention": (None, (3, 2, 4), ["in_proj_weight", "out_proj.weight"]),
    "multihead_attention_no_weights": (None, (3, 2, 4), ["in_proj_bias", "out_proj.bias"]),
    "gru": (
        lambda lib, dt: lib.nn.GRU(3, 4, num_layers=2, dtype=dt),
        (5, 2, 3),
        ["weight_ih_l0", "bias_hh_l1"],
    ),
    "rnn_relu_bidirectional": (
        lambda lib, dt: lib.nn.RNN(3, 4, nonlinearity="relu", bidirectional=True, dtype=dt),
        (4, 2, 3),
        ["weight_hh_l0_reverse", "bias_ih_l0"],
    ),
    "lstm_projections": (
        lambda lib, dt: lib.nn.LSTM(3, 4, proj_size=2, batch_first=True, dtype=dt),
        (2, 5, 3),
        ["weight_hr_l0", "weight_ih_l0"],
    ),
    "batchnorm1d_empty": (
        lambda lib, dt: lib.nn.BatchNorm1d(3, dtype=dt),
        (0, 3),
        ["weight", "bias"],
    ),
    "small_cnn": (_small_cnn, (2, 2, 6, 6), ["0.weight", "1.bias", "4.weight", "7.weight"]),
}


class _SelfAttention:
    """nn.MultiheadAttention(4, 2) called as self-attention (query = key = value)."""

    def __new__(cls, lib, dt, need_weights=True):
        mha = lib.nn.MultiheadAttention(4, 2, dtype=dt)

        class Wrap(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.mha = mha

            def forward(self, x):
                return self.mha(x, x, x, need_weights=need_weights)

        return Wrap()


def _self_attention_no_weights(lib, dt):
    """need_weights=False: scaled_dot_product_attention on 4-D views (the fused kernel, no
    forward formula in PyTorch: its error)."""
    return _SelfAttention(lib, dt, need_weights=False)


def _module_case(name):
    build, shape, params = MODULES[name]
    if name.startswith("multihead_attention"):
        build = _SelfAttention if name == "multihead_attention" else _self_attention_no_weights
        params = ["mha." + p for p in params]
    return build, shape, params


@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_modules(name, dtype):
    build, shape, params = _module_case(name)
    kw = {"train": name != "batchnorm2d_eval"}
    if name == "embedding":
        kw["int_input"] = np.array([[0, 1, 5], [3, 1, 0]])
    duals = ([["input"]] if shape is not None else []) + [[p] for p in params]
    duals.append((["input"] if shape is not None else []) + params)
    tol = {"rtol": 1e-7, "atol": 1e-9} if dtype == "float64" else {"rtol": 2e-5, "atol": 2e-5}
    for dual in duals:
        got = _module_scenario(minigrad, build, shape, dual, dtype, **kw)
        if isinstance(got, tuple) and _GAP in got[1]:
            pytest.skip(f"another family's formula is missing: {got[1]}")
        assert_parity(_module_scenario, build, shape, dual, dtype, **kw, **tol)
    # under no_grad too (the tangents then do not require grad)
    assert_parity(_module_scenario, build, shape, duals[-1], dtype, no_grad=True, **kw, **tol)


# ----------------------------------------------------------------------------- layouts
def _layouts(lib):
    """Primal layouts the tangents inherit: a conv over a batch of one is contiguous with
    the batch dim's stride a sample's size (NumPy's moved axis kept 1); layer norm of a
    transposed input is contiguous (NumPy kept the input's order)."""
    rng = _rng(81)
    x = lib.tensor(rng.standard_normal((1, 4, 7, 7)))
    w = lib.tensor(rng.standard_normal((6, 2, 3, 3)))
    e = lib.tensor(rng.standard_normal((1, 2, 5, 5)))
    v = lib.tensor(rng.standard_normal((3, 2, 2, 2)))
    ln = lib.tensor(rng.standard_normal((3, 4, 2)))
    return [
        F(lib).conv2d(x, w, dilation=2, groups=2, stride=(1, 2)).stride(),
        F(lib).conv2d(e, v, padding=1).stride(),
        F(lib).conv1d(x[:, :, 0], w[:, :, 0], groups=2).stride(),
        F(lib).layer_norm(ln.transpose(0, 2), (3,)).stride(),
        F(lib).layer_norm(ln.transpose(0, 1), (3, 2)).stride(),
    ]


def _channels_last_layouts(lib):
    """Channels-last inputs (or a channels-last conv weight) give channels-last results of
    conv2d, conv_transpose2d, the pools (their indices too) and upsampling, as PyTorch's
    CPU kernels allocate them (minigrad's were row-major)."""
    rng = _rng(82)

    def cl(*shape):  # a channels-last tensor of logical shape (N, C, *spatial)
        a = lib.tensor(rng.standard_normal((shape[0], *shape[2:], shape[1])))
        return a.permute(0, len(shape) - 1, *range(1, len(shape) - 1))

    x, x1, x5 = cl(2, 3, 5, 6), cl(1, 3, 5, 6), cl(2, 3, 3, 4, 2)
    w = lib.tensor(rng.standard_normal((4, 3, 3, 3)))
    plain = lib.tensor(rng.standard_normal((2, 3, 5, 6)))
    wt = lib.tensor(rng.standard_normal((3, 4, 3, 3)))
    outs = [
        F(lib).conv2d(x, w, padding=1),
        F(lib).conv2d(plain, cl(4, 3, 3, 3)),
        F(lib).conv2d(x1, w, lib.ones(4, dtype=x.dtype), stride=2),
        F(lib).conv_transpose2d(x, wt, stride=2),
        *F(lib).max_pool2d(x, 2, return_indices=True),
        F(lib).max_pool2d(x1, 2),
        F(lib).avg_pool2d(x, 2, padding=1),
        F(lib).adaptive_avg_pool2d(x, (2, 4)),
        *F(lib).adaptive_max_pool2d(x, (2, 4), return_indices=True),
        F(lib).interpolate(x, scale_factor=2),
        F(lib).interpolate(x, size=(3, 7), mode="bilinear"),
        F(lib).interpolate(x5, scale_factor=2),
    ]
    return [o.stride() for o in outs]


def test_primal_layouts():
    assert_parity(_layouts)
    assert_parity(_channels_last_layouts)


def _nhwc(x):
    return x.permute(0, 3, 1, 2)


CHANNELS_LAST = {
    "conv2d": (
        lambda lib, x, w, b: F(lib).conv2d(_nhwc(x), w, b, padding=1),
        ((2, 5, 4, 3), (4, 3, 3, 3), (4,)),
    ),
    "conv_transpose2d": (
        lambda lib, x, w: F(lib).conv_transpose2d(_nhwc(x), w, stride=2),
        ((1, 3, 4, 2), (2, 3, 2, 2)),
    ),
    "max_pool2d": (lambda lib, x: F(lib).max_pool2d(_nhwc(x), 2), ((2, 4, 6, 3),)),
    "avg_pool2d": (lambda lib, x: F(lib).avg_pool2d(_nhwc(x), 3, 2, 1), ((2, 5, 5, 2),)),
    "adaptive_avg_pool2d": (
        lambda lib, x: F(lib).adaptive_avg_pool2d(_nhwc(x), (2, 3)),
        ((2, 5, 7, 3),),
    ),
    "adaptive_max_pool2d": (
        lambda lib, x: F(lib).adaptive_max_pool2d(_nhwc(x), 3),
        ((1, 5, 5, 2),),
    ),
    "bilinear": (
        lambda lib, x: F(lib).interpolate(_nhwc(x), scale_factor=2, mode="bilinear"),
        ((2, 3, 4, 3),),
    ),
    "nearest": (lambda lib, x: F(lib).interpolate(_nhwc(x), size=(5, 3)), ((1, 3, 2, 4),)),
}


@pytest.mark.parametrize("name", list(CHANNELS_LAST))
def test_channels_last_tangents(name):
    """The tangent has the primal's (channels-last) layout, as PyTorch's."""
    fn, shapes = CHANNELS_LAST[name]
    primals = _arrays(len(name) + 400, *shapes)
    check(fn, primals, tangent_sets(primals, 4)[0])


# ----------------------------------------------------------------------------- reverse over forward
def _reverse_over_forward(lib, op, shapes, dual):
    """Gradients of a tangent (a Hessian-vector product's route): the primals require grad,
    ``dual`` names the ones with tangents; the gradient of ``(tangent * u).sum()`` with
    respect to every primal (allow_unused: None where the graph does not reach)."""
    fwAD = lib.autograd.forward_ad
    rng = _rng(91)
    prim = [lib.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    with fwAD.dual_level():
        xs = [
            fwAD.make_dual(p, lib.tensor(rng.standard_normal(p.shape))) if i in dual else p
            for i, p in enumerate(prim)
        ]
        jv = fwAD.unpack_dual(op(lib, *xs)).tangent
        if not jv.requires_grad:  # (a linear op's tangent: made of tangents only)
            return "no graph"
        u = lib.tensor(rng.standard_normal(tuple(jv.shape)))
        try:
            grads = lib.autograd.grad((jv * u).sum(), prim, allow_unused=True)
        except RuntimeError as e:
            return type(e).__name__, str(e).replace("minigrad.", "torch.")
    return [None if g is None else to_numpy(g) for g in grads]


ROF = {
    "conv2d": (CONV["conv2d_stride_pad"][0], ((2, 3, 6, 6), (4, 3, 3, 3), (4,))),
    "batch_norm": (NORM["batch_norm_train"][0], ((4, 3, 5), (3,), (3,))),
    "layer_norm": (NORM["layer_norm"][0], ((2, 3, 5), (5,), (5,))),
    "group_norm": (NORM["group_norm"][0], ((3, 4, 5), (4,), (4,))),
    "max_pool2d": (lambda lib, x: F(lib).max_pool2d(x, 2), ((1, 2, 4, 4),)),
    "safe_softmax": (lambda lib, x: _safe_softmax(lib, x, 1), ((2, 3, 4),)),  # (raises)
    "embedding": (lambda lib, w: F(lib).embedding(lib.tensor([1, 0]), w), ((3, 2),)),
}


@pytest.mark.parametrize("name", list(ROF))
def test_reverse_over_forward(name):
    op, shapes = ROF[name]
    for dual in [set(range(len(shapes)))] + [{i} for i in range(len(shapes))]:
        try:
            _reverse_over_forward(minigrad, op, shapes, dual)
        except NotImplementedError as e:
            if _GAP in str(e):
                pytest.skip(f"another family's formula is missing: {e}")
        assert_parity(_reverse_over_forward, op, shapes, dual, rtol=1e-7, atol=1e-9)
