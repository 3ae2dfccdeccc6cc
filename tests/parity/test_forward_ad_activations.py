"""Forward-mode AD (issue 23) of the activations and losses: each node's ``jvp`` against
PyTorch's forward formulas (``derivatives.yaml`` ``result:``), through ``check_jvp`` — values,
tangent values/dtype/strides/``requires_grad``, and PyTorch's tangent against finite
differences. Per op: a plain case, a non-contiguous (transposed / strided) input, an empty
input, float32, the in-place form, ``no_grad``, primals requiring grad (reverse over forward),
and for the losses each input dual alone and both at once, with each reduction."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from tests.parity._forward_ad import check_jvp

R = np.random.default_rng(2323)
X = R.standard_normal((3, 4)) * 2
V = R.standard_normal((3, 4))
E = np.zeros((0, 4))
W4 = np.array([0.1, -0.2, 0.3, 0.25])


def F(lib):
    return lib.nn.functional


# (name, fn(lib, x), kinked: the op is not smooth (fd only away from the kinks))
UNARY = {
    "relu": lambda lib, x: F(lib).relu(x),
    "relu6": lambda lib, x: F(lib).relu6(x),
    "leaky_relu": lambda lib, x: F(lib).leaky_relu(x, 0.2),
    "elu": lambda lib, x: F(lib).elu(x, 0.7),
    "gelu": lambda lib, x: F(lib).gelu(x),
    "gelu_tanh": lambda lib, x: F(lib).gelu(x, approximate="tanh"),
    "silu": lambda lib, x: F(lib).silu(x),
    "mish": lambda lib, x: F(lib).mish(x),
    "softplus": lambda lib, x: F(lib).softplus(x, beta=2, threshold=3),
    "hardtanh": lambda lib, x: F(lib).hardtanh(x, -1.5, 2.0),
    "hardswish": lambda lib, x: F(lib).hardswish(x),
    "hardsigmoid": lambda lib, x: F(lib).hardsigmoid(x),
    "softmax": lambda lib, x: F(lib).softmax(x, 1),
    "softmax_dim0": lambda lib, x: lib.softmax(x, -2),
    "log_softmax": lambda lib, x: F(lib).log_softmax(x, -1),
    "log_softmax_dim0": lambda lib, x: x.log_softmax(0),
    "prelu_scalar": lambda lib, x: F(lib).prelu(x, lib.tensor([0.25], dtype=x.dtype)),
    "prelu_channels": lambda lib, x: F(lib).prelu(x.t(), lib.tensor(W4[:3], dtype=x.dtype)),
    "relu_method": lambda lib, x: x.relu(),
}

INPLACE = {
    "relu_": lambda lib, x: (x * 1).relu_(),
    "relu_inplace": lambda lib, x: F(lib).relu(x * 1, inplace=True),
    "F.relu_": lambda lib, x: F(lib).relu_(x * 1),
    "relu6_inplace": lambda lib, x: F(lib).relu6(x * 1, inplace=True),
    "leaky_relu_inplace": lambda lib, x: F(lib).leaky_relu(x * 1, 0.3, inplace=True),
    "elu_inplace": lambda lib, x: F(lib).elu(x * 1, 1.3, inplace=True),
    "silu_inplace": lambda lib, x: F(lib).silu(x * 1, inplace=True),
    "hardtanh_": lambda lib, x: F(lib).hardtanh_(x * 1, -0.5, 0.5),
    "hardswish_inplace": lambda lib, x: F(lib).hardswish(x * 1, inplace=True),
    "hardsigmoid_inplace": lambda lib, x: F(lib).hardsigmoid(x * 1, inplace=True),
    "mish_inplace": lambda lib, x: F(lib).mish(x * 1, inplace=True),
    "relu_on_dual_leaf": lambda lib, x: x.relu_(),
    "relu_view_of_plain": lambda lib, x: _into_view(lib, x),
    "torch.relu_": lambda lib, x: lib.relu_(x * 1),
    "relu_on_view_of_dual": lambda lib, x: _on_view(lib, x),
    "hardtanh_on_view_of_dual": lambda lib, x: _on_view(lib, x, "hardtanh"),
}


def _on_view(lib, x, op="relu"):
    """The in-place op on a (strided) view of a dual: the base's tangent is written in place."""
    h = x * 1
    v = h.t()[1:]
    if op == "relu":
        v.relu_()
    else:
        F(lib).hardtanh(v, -0.3, 0.3, inplace=True)
    return [h, v]


def _into_view(lib, x):
    """relu_ on a view of a tensor without a tangent, after copying the dual into it."""
    b = lib.zeros(4, 4, dtype=x.dtype)
    b[1:].copy_(x)
    b[1:].relu_()
    return b


@pytest.mark.parametrize("name", list(UNARY) + list(INPLACE))
def test_activation_jvp(name):
    fn = {**UNARY, **INPLACE}[name]
    check_jvp(fn, [X], [V])


@pytest.mark.parametrize("name", list(UNARY) + list(INPLACE))
def test_activation_jvp_float32(name):
    fn = {**UNARY, **INPLACE}[name]
    check_jvp(fn, [X], [V], dtype="float32", rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", list(UNARY))
def test_activation_jvp_non_contiguous(name):
    fn = UNARY[name]
    check_jvp(lambda lib, x: fn(lib, x.t()[::2]), [X], [V])


@pytest.mark.parametrize("name", [n for n in UNARY if n != "prelu_channels"])
def test_activation_jvp_empty(name):
    check_jvp(UNARY[name], [E], [E])


@pytest.mark.parametrize("name", list(UNARY) + list(INPLACE))
def test_activation_jvp_no_grad(name):
    fn = {**UNARY, **INPLACE}[name]

    def under_no_grad(lib, x):
        with lib.no_grad():
            return fn(lib, x)
    check_jvp(under_no_grad, [X], [V])


@pytest.mark.parametrize("name", [n for n in list(UNARY) + list(INPLACE)
                                  if "inplace" not in n and "_" != n[-1]
                                  and n not in ("relu_on_dual_leaf", "relu_view_of_plain")])
def test_activation_jvp_primal_grad(name):
    if name == "hardtanh_on_view_of_dual":  # (the in-place op's node saves a clone of self)
        _skip_without_jvp("CloneBackward0")
    fn = {**UNARY, **INPLACE}[name]
    check_jvp(fn, [X], [V], primal_grad=True)


def _gelu_hvp(lib, approximate):
    """Reverse over forward: the gradient of sum(jvp) (a Hessian-vector product)."""
    from minigrad.parity import to_numpy

    fwAD = lib.autograd.forward_ad
    x = lib.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, lib.tensor(V))
        jv = fwAD.unpack_dual(F(lib).gelu(d, approximate=approximate)).tangent
        (g,) = lib.autograd.grad((jv * lib.tensor(GV)).sum(), x)
    # ('tanh': minigrad's backward is tensor ops, PyTorch's one GeluBackwardBackward0 node)
    return [type(jv.grad_fn).__name__ if approximate == "none" else None, to_numpy(g)]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_reverse_over_forward(approximate):
    """The exact gelu's tangent is gelu_backward(self_t, self): GeluBackwardBackward0, whose
    gradient in self is grad * self_t * φ(x) (2 - x²)."""
    assert_parity(_gelu_hvp, approximate, rtol=1e-9, atol=1e-12)


def test_prelu_weight_dual():
    """prelu: the weight dual alone, and with the input (broadcast over channels)."""
    w = np.array([0.1, -0.2, 0.3])
    tw = np.array([1.0, 2.0, -0.5])
    x = R.standard_normal((2, 3, 4))
    tx = R.standard_normal((2, 3, 4))

    def fn(lib, x, w):
        return F(lib).prelu(x, w)
    check_jvp(fn, [x, w], [None, tw])
    check_jvp(fn, [x, w], [tx, tw])
    check_jvp(fn, [x, w], [tx, tw], primal_grad=True)
    check_jvp(fn, [x, w[:1]], [tx, tw[:1]], dtype="float32", rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("module", [
    lambda nn: nn.ReLU(), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"), lambda nn: nn.SiLU(), lambda nn: nn.ELU(0.5),
    lambda nn: nn.LeakyReLU(0.1, inplace=True), lambda nn: nn.Softplus(), lambda nn: nn.Mish(),
    lambda nn: nn.Hardtanh(), lambda nn: nn.ReLU6(), lambda nn: nn.Hardswish(),
    lambda nn: nn.Hardsigmoid(), lambda nn: nn.Softmax(1), lambda nn: nn.LogSoftmax(0),
    lambda nn: nn.Tanh(), lambda nn: nn.Sigmoid(), lambda nn: nn.PReLU(),
    lambda nn: nn.Softmax(dim=-1),
])
def test_activation_modules(module):
    check_jvp(lambda lib, x: module(lib.nn)(x * 1), [X], [V])


# ----------------------------------------------------------------------------- losses
P01 = 1 / (1 + np.exp(-X))  # probabilities, for binary_cross_entropy
T01 = R.uniform(0.05, 0.95, (3, 4))
TV = R.standard_normal((3, 4))
Y = R.standard_normal((3, 4)) * 2
C3 = np.array([0, 3, 1])


def _weight(lib, like):
    return lib.tensor(W4 + 1, dtype=like.dtype)


LOSSES = {  # fn(lib, input, target, reduction); kinked: no finite differences
    "mse": lambda lib, x, y, r: F(lib).mse_loss(x, y, reduction=r),
    "smooth_l1": lambda lib, x, y, r: F(lib).smooth_l1_loss(x, y, reduction=r, beta=1.5),
    "huber": lambda lib, x, y, r: F(lib).huber_loss(x, y, reduction=r, delta=0.7),
    "bce_logits": lambda lib, x, y, r: F(lib).binary_cross_entropy_with_logits(
        x, y.sigmoid(), reduction=r),
    "bce_logits_weights": lambda lib, x, y, r: F(lib).binary_cross_entropy_with_logits(
        x, y.sigmoid(), weight=_weight(lib, x), pos_weight=_weight(lib, x) * 2, reduction=r),
    "bce": lambda lib, x, y, r: F(lib).binary_cross_entropy(x.sigmoid(), y.sigmoid(),
                                                            reduction=r),
    "bce_weight": lambda lib, x, y, r: F(lib).binary_cross_entropy(
        x.sigmoid(), y.sigmoid(), weight=_weight(lib, x), reduction=r),
    "kl_div_log_target": lambda lib, x, y, r: F(lib).kl_div(x, y, reduction=r, log_target=True),
    "kl_div": lambda lib, x, y, r: F(lib).kl_div(x, y.sigmoid(), reduction=r),
    "l1": lambda lib, x, y, r: F(lib).l1_loss(x, y, reduction=r),
}
REDUCTIONS = ["none", "mean", "sum"]


def _loss_cases():
    for name in LOSSES:
        for r in REDUCTIONS:
            if name in ("kl_div", "kl_div_log_target", "l1") and r != "none":
                continue  # (composed with mean/sum: their formulas are the reductions' family)
            yield name, r


@pytest.mark.parametrize("name,red", list(_loss_cases()))
@pytest.mark.parametrize("duals", ["input", "target", "both"])
def test_loss_jvp(name, red, duals):
    fn = LOSSES[name]
    tx = V if duals != "target" else None
    ty = TV if duals != "input" else None
    check_jvp(lambda lib, x, y: fn(lib, x, y, red), [X, Y], [tx, ty])


@pytest.mark.parametrize("name,red", list(_loss_cases()))
def test_loss_jvp_float32_and_layouts(name, red):
    fn = LOSSES[name]
    check_jvp(lambda lib, x, y: fn(lib, x, y, red), [X, Y], [V, TV], dtype="float32",
              rtol=3e-6, atol=1e-6)
    check_jvp(lambda lib, x, y: fn(lib, x.t(), y.t(), red),
              [X, Y], [V, TV])
    check_jvp(lambda lib, x, y: fn(lib, x, y, red), [E, E], [E, E])


@pytest.mark.parametrize("name,red", list(_loss_cases()))
def test_loss_jvp_no_grad_and_primal_grad(name, red):
    fn = LOSSES[name]

    def under_no_grad(lib, x, y):
        with lib.no_grad():
            return fn(lib, x, y, red)
    check_jvp(under_no_grad, [X, Y], [V, TV])
    for tx, ty in ((V, TV), (V, None), (None, TV)):
        check_jvp(lambda lib, x, y: fn(lib, x, y, red), [X, Y], [tx, ty], primal_grad=True)


def test_mse_broadcast_target():
    """A (4,) target against (3, 4) input: warns and expands (the expand's tangent too)."""
    import warnings

    def fn(lib, x, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [F(lib).mse_loss(x, y, reduction=r) for r in REDUCTIONS]
    check_jvp(fn, [X, Y[0]], [V, TV[0]])
    check_jvp(fn, [X, Y[0]], [None, TV[0]])


NLL = {
    "nll_2d": (lambda lib, x, t, **kw: F(lib).nll_loss(x, t, **kw), (3, 4), C3),
    "nll_1d": (lambda lib, x, t, **kw: F(lib).nll_loss(x, t, **kw), (4,), np.array(2)),
    "nll_spatial": (lambda lib, x, t, **kw: F(lib).nll_loss(x, t, **kw), (2, 4, 3, 2),
                    R.integers(0, 4, (2, 3, 2))),
    "nll_3d": (lambda lib, x, t, **kw: F(lib).nll_loss(x, t, **kw), (2, 4, 3),
               R.integers(0, 4, (2, 3))),
    "cross_entropy": (lambda lib, x, t, **kw: F(lib).cross_entropy(x, t, **kw), (3, 4), C3),
    "cross_entropy_spatial": (lambda lib, x, t, **kw: F(lib).cross_entropy(x, t, **kw),
                              (2, 4, 3, 2), R.integers(0, 4, (2, 3, 2))),
}


@pytest.mark.parametrize("name", list(NLL))
@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("opts", ["plain", "weight", "ignore"])
def test_nll_cross_entropy_jvp(name, red, opts):
    fn, shape, target = NLL[name]
    x, v = R.standard_normal(shape), R.standard_normal(shape)

    def call(lib, x):
        kw = {"reduction": red}
        if opts == "weight":
            kw["weight"] = _weight(lib, x)
        if opts == "ignore":
            kw["ignore_index"] = 1
        return fn(lib, x, lib.tensor(target), **kw)
    check_jvp(call, [x], [v])
    check_jvp(call, [x], [v], dtype="float32", rtol=3e-6, atol=1e-6)
    check_jvp(call, [x], [v], primal_grad=True)


def test_nll_jvp_no_grad_and_layout():
    def fn(lib, x):
        with lib.no_grad():
            return F(lib).nll_loss(x.t(), lib.tensor(C3))
    check_jvp(fn, [X.T.copy()], [V.T.copy()])
    check_jvp(lambda lib, x: F(lib).nll_loss(x, lib.tensor(C3[:0])), [E], [E])


@pytest.mark.parametrize("module", [
    lambda nn: nn.MSELoss(), lambda nn: nn.L1Loss(reduction="none"), lambda nn: nn.SmoothL1Loss(),
    lambda nn: nn.HuberLoss(reduction="sum"), lambda nn: nn.BCEWithLogitsLoss(),
])
def test_loss_modules(module):
    check_jvp(lambda lib, x, y: module(lib.nn)(x, y.sigmoid()), [X, Y], [V, TV])


@pytest.mark.parametrize("module", [
    lambda nn: nn.CrossEntropyLoss(), lambda nn: nn.NLLLoss(reduction="sum"),
    lambda nn: nn.CrossEntropyLoss(reduction="none", ignore_index=0),
])
def test_classification_loss_modules(module):
    check_jvp(lambda lib, x: module(lib.nn)(x, lib.tensor(C3)), [X], [V])


def test_bce_module():
    check_jvp(lambda lib, x, y: lib.nn.BCELoss()(x.sigmoid(), y.sigmoid()), [X, Y], [V, TV])


def test_bce_with_logits_weight_broadcast_errors():
    """A weight or pos_weight that does not broadcast: PyTorch's RuntimeError (was NumPy's
    ValueError)."""
    from minigrad.parity import capture_error

    def fn(lib):
        x = lib.zeros(4, 3)
        bce = F(lib).binary_cross_entropy_with_logits
        return [capture_error(lambda: bce(x, x, weight=lib.ones(4))),
                capture_error(lambda: bce(x, x, pos_weight=lib.ones(4)))]
    assert_parity(fn)


# ------------------------------------------------------- forward over reverse (double backward)
def _grad_of(op, wrt=1):
    """fn(lib, g, *inputs): the gradient of ``op(lib, *inputs)`` for the first ``wrt`` inputs
    with cotangent ``g`` and create_graph, so the backward's own nodes (``...BackwardBackward0``)
    carry the tangents of g and of the inputs."""
    def fn(lib, g, *xs):
        xs = [x if x.requires_grad else x.requires_grad_() for x in xs[:wrt]] + list(xs[wrt:])
        y = op(lib, *xs)
        return list(lib.autograd.grad(y, xs[:wrt], g.reshape(y.shape), create_graph=True))
    return fn


FOB_UNARY = {
    "relu": UNARY["relu"], "hardtanh": UNARY["hardtanh"], "hardswish": UNARY["hardswish"],
    "leaky_relu": UNARY["leaky_relu"], "softplus": UNARY["softplus"], "elu": UNARY["elu"],
    "elu_inplace": INPLACE["elu_inplace"], "leaky_relu_inplace": INPLACE["leaky_relu_inplace"],
    "mish": UNARY["mish"], "gelu": UNARY["gelu"],  # (gelu 'tanh' and silu: their backward's
    # scalar ops need jvps from the pointwise family first: AddBackward1, RsubBackward1)
    "softmax": UNARY["softmax"], "log_softmax": UNARY["log_softmax"],
    "softmax_dim0": UNARY["softmax_dim0"], "log_softmax_dim0": UNARY["log_softmax_dim0"],
    "prelu_scalar": UNARY["prelu_scalar"],
}
GV = R.standard_normal((3, 4))


@pytest.mark.parametrize("name", list(FOB_UNARY))
@pytest.mark.parametrize("duals", ["grad", "input", "both"])
def test_forward_over_reverse_activations(name, duals):
    fn = _grad_of(FOB_UNARY[name])
    tg = V if duals != "input" else None
    tx = TV if duals != "grad" else None
    check_jvp(fn, [GV, X], [tg, tx], primal_grad=True)


def test_forward_over_reverse_prelu_weight():
    """prelu's double-backward node with the weight dual: the input gradient's tangent. (The
    weight gradient goes through sum_to, SumBackward1: the reductions' family.)"""
    w = np.array([0.1, -0.2, 0.3, 0.4])

    def op(lib, x, w):  # (not on x.t(): minigrad's prelu/threshold backward kernels give a
        return F(lib).prelu(x, w)  # row-major gradient where PyTorch's follows self's layout)
    fn = _grad_of(op)
    check_jvp(fn, [GV, X, w], [V, TV, w * 2])
    check_jvp(fn, [GV, X, w], [None, None, w * 2])
    check_jvp(fn, [GV, X, w], [None, TV, None])


def test_forward_over_reverse_unsupported():
    """hardsigmoid_backward and huber_loss_backward: no forward formula in PyTorch."""
    check_jvp(_grad_of(UNARY["hardsigmoid"]), [GV, X], [V, None], primal_grad=True)
    fn = _grad_of(lambda lib, x, y: F(lib).huber_loss(x, y))
    check_jvp(fn, [np.array(1.5), X, Y], [np.array(0.5), None, None], primal_grad=True)


FOB_LOSSES = {  # (fn, input, target)
    "mse": (LOSSES["mse"], X, Y), "smooth_l1": (LOSSES["smooth_l1"], X, Y),
    "bce": (lambda lib, x, y, r: F(lib).binary_cross_entropy(x, y, reduction=r), P01, T01),
    "bce_weight": (lambda lib, x, y, r: F(lib).binary_cross_entropy(
        x, y, weight=_weight(lib, x), reduction=r), P01, T01),
}


@pytest.mark.parametrize("name", FOB_LOSSES)
@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("duals", ["grad", "input", "target", "all"])
def test_forward_over_reverse_losses(name, red, duals):
    op, x, y = FOB_LOSSES[name]
    shape = (3, 4) if red == "none" else ()
    g, tg = R.standard_normal(shape) + 1.5, R.standard_normal(shape)
    tx = V * 0.01 if duals in ("input", "all") else None  # (small: probabilities stay in
    ty = TV * 0.01 if duals in ("target", "all") else None  # (0, 1) for the differences)
    tg = tg if duals in ("grad", "all") else None
    # PyTorch's bce double-backward formula reduces grad_output's term to one number for
    # 'mean'/'sum' (not the derivative): no finite differences there
    fd = not (name.startswith("bce") and red != "none" and tg is not None)
    check_jvp(_grad_of(lambda lib, x, y: op(lib, x, y, red)), [g, x, y], [tg, tx, ty],
              primal_grad=True, fd=fd)


@pytest.mark.parametrize("name", ["nll_2d", "nll_spatial", "cross_entropy"])
@pytest.mark.parametrize("red", REDUCTIONS)
def test_forward_over_reverse_nll(name, red):
    fn, shape, target = NLL[name]
    x = R.standard_normal(shape)
    gshape = target.shape if red == "none" else ()
    g, tg = R.standard_normal(gshape), R.standard_normal(gshape)
    op = _grad_of(lambda lib, x: fn(lib, x, lib.tensor(target), reduction=red,
                                    weight=_weight(lib, x)))
    check_jvp(op, [g, x], [tg, None], primal_grad=True)
    check_jvp(op, [g, x], [tg, R.standard_normal(shape)], primal_grad=True)


def _saved_output_tangents(lib):
    """A saved output unpacks with its tangent (PyTorch's SavedVariable keeps the forward
    grad), also after an in-place op rewrote it; not once the level is left."""
    from minigrad.parity import to_numpy

    fwAD = lib.autograd.forward_ad
    out = []
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.tensor(X, requires_grad=True), lib.tensor(V))
        y = x.exp()
        z = x * 1
        z.relu_()
        for node in (y.grad_fn, z.grad_fn):
            t = fwAD.unpack_dual(node._saved_result).tangent
            out.append(None if t is None else to_numpy(t))
    out.append(fwAD.unpack_dual(y.grad_fn._saved_result).tangent)
    return out


def test_saved_output_keeps_its_tangent():
    assert_parity(_saved_output_tangents)


# ------------------------------------------------- compositions over other families' formulas
def _node_classes():
    from minigrad.autograd.graph import Node

    found, todo = {}, [Node]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.setdefault(sub.__name__, sub)
            todo.append(sub)
    return found


def _skip_without_jvp(*names):
    """Skip while one of these nodes (another family's) has no forward formula yet."""
    from minigrad.autograd.graph import Node

    nodes = _node_classes()
    missing = [n for n in names if not any("jvp" in vars(k) for k in nodes[n].__mro__
                                           if k is not Node)]
    if missing:
        pytest.skip(f"waits for the forward formulas of {', '.join(missing)}")


COMPOSED = {  # name: (fn(lib, x), the other families' nodes it goes through)
    "ce_label_smoothing_none": (lambda lib, x: F(lib).cross_entropy(
        x, lib.tensor(C3), label_smoothing=0.1, reduction="none"),
        ["SumBackward1", "NegBackward0", "MaskedFillBackward0", "MulBackward1"]),
    "ce_label_smoothing_mean": (lambda lib, x: F(lib).cross_entropy(
        x, lib.tensor(C3), weight=_weight(lib, x), label_smoothing=0.2),
        ["SumBackward0", "SumBackward1", "NegBackward0", "MaskedFillBackward0", "MulBackward1",
         "DivBackward0"]),
    "ce_soft_targets": (lambda lib, x: [F(lib).cross_entropy(x, lib.tensor(T01), reduction=r)
                                        for r in REDUCTIONS],
                        ["SumBackward0", "SumBackward1", "NegBackward0", "DivBackward1"]),
    "kl_div_batchmean": (lambda lib, x: F(lib).kl_div(x, lib.tensor(T01), reduction="batchmean"),
                         ["SumBackward0", "DivBackward1"]),
    "kl_div_log_target_mean": (lambda lib, x: F(lib).kl_div(x, lib.tensor(Y), log_target=True),
                               ["MeanBackward0"]),
    "l1_mean_sum": (lambda lib, x: [F(lib).l1_loss(x, lib.tensor(Y), reduction=r)
                                    for r in ("mean", "sum")],
                    ["MeanBackward0", "SumBackward0"]),
    "mse_float32_input_float64_target": (lambda lib, x: F(lib).mse_loss(x.float(),
                                                                        lib.tensor(Y)),
                                         ["ToCopyBackward0"]),
    "softmax_dtype": (lambda lib, x: F(lib).softmax(x, 1, dtype=lib.float32),
                      ["ToCopyBackward0"]),
    "cross_entropy_module_smoothing": (lambda lib, x: lib.nn.CrossEntropyLoss(
        label_smoothing=0.05)(x, lib.tensor(C3)),
        ["SumBackward0", "SumBackward1", "NegBackward0", "MaskedFillBackward0", "MulBackward1",
         "DivBackward0"]),
    "silu_forward_over_reverse": (lambda lib, x: _grad_of(UNARY["silu"])(
        lib, x * 0 + lib.tensor(GV, dtype=x.dtype), x), ["AddBackward1", "RsubBackward1"]),
    "gelu_tanh_forward_over_reverse": (lambda lib, x: _grad_of(UNARY["gelu_tanh"])(
        lib, x * 0 + lib.tensor(GV, dtype=x.dtype), x), ["AddBackward1", "RsubBackward1"]),
}


@pytest.mark.parametrize("name", list(COMPOSED))
def test_composed_losses_and_activations(name):
    fn, needs = COMPOSED[name]
    _skip_without_jvp(*needs)
    low = "float32" in name or "dtype" in name  # (a float32 step: finite differences are noise)
    check_jvp(fn, [X], [V], rtol=1e-6 if low else 1e-7, fd=not low)


@pytest.mark.parametrize("name", list(UNARY))
def test_activation_jvp_float16(name):
    check_jvp(UNARY[name], [X], [V], dtype="float16", rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name,red", list(_loss_cases()))
def test_loss_jvp_float16(name, red):
    fn = LOSSES[name]
    check_jvp(lambda lib, x, y: fn(lib, x, y, red), [X, Y], [V, TV], dtype="float16",
              rtol=2e-3, atol=2e-3)


def test_nondifferentiable_weights_and_edge_shapes():
    """Dual class weights (nll_loss, bce, bce_with_logits) give no tangent, as in PyTorch (they
    are not differentiable); with a dual input too, bce's formulas multiply by the dual weight
    and PyTorch refuses the tangent's tangent (RuntimeError), nll's do not. 1-D input with a
    1-element target; 0-d softmax."""
    w = W4 + 1

    def fn(lib, x, w):
        t = lib.tensor(C3)
        return [F(lib).nll_loss(x, t, weight=w), F(lib).cross_entropy(x, t, weight=w),
                F(lib).binary_cross_entropy_with_logits(x, x.detach().sigmoid(), weight=w),
                F(lib).binary_cross_entropy(x.detach().sigmoid(), x.detach().sigmoid() * 0.5,
                                            weight=w.expand(3, 4))]
    check_jvp(fn, [X, w], [None, w * 3])
    check_jvp(fn, [X, w], [V, w * 3])
    for i in range(4):
        check_jvp(lambda lib, x, w, i=i: fn(lib, x, w)[i], [X, w], [V, w * 3])
    check_jvp(lambda lib, x, w: F(lib).binary_cross_entropy_with_logits(
        x, x.detach().sigmoid(), pos_weight=w), [X, w], [V, w * 3])
    check_jvp(lambda lib, x: F(lib).nll_loss(x, lib.tensor([2])), [X[0]], [V[0]])
    check_jvp(lambda lib, x: [x.softmax(0), x.log_softmax(-1), F(lib).relu(x)],
              [np.array(0.7)], [np.array(-1.5)])


@pytest.mark.parametrize("name", ["relu", "hardtanh", "hardswish", "leaky_relu", "softplus",
                                  "elu", "gelu", "softmax", "log_softmax", "prelu_scalar"])
def test_forward_over_reverse_float32_and_empty(name):
    fn = _grad_of(FOB_UNARY[name])
    check_jvp(fn, [GV, X], [V, TV], primal_grad=True, dtype="float32", rtol=3e-6, atol=1e-6)
    check_jvp(fn, [E, E], [E, E], primal_grad=True)


def _bce_double_dual_grad_output(lib, reduction):
    fwAD = lib.autograd.forward_ad
    r = np.random.default_rng(5)
    x0, y0, u0 = r.standard_normal((3, 4)), r.standard_normal((3, 4)), r.standard_normal(4)
    with fwAD.dual_level():
        x = lib.tensor(x0, requires_grad=True).sigmoid()
        y = lib.tensor(y0).sigmoid()
        u = fwAD.make_dual(lib.tensor(u0, requires_grad=True), lib.tensor(u0 * 0.5))
        loss = lib.nn.functional.binary_cross_entropy(x, y, reduction=reduction)
        go = u.sum() if reduction != "none" else u.expand(3, 4) * 1
        (g,) = lib.autograd.grad(loss, x, go, create_graph=True)
        return to_numpy(fwAD.unpack_dual(g).tangent)


@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_bce_double_backward_tangent_of_grad_output_is_elementwise(reduction):
    """Forward over reverse through BinaryCrossEntropyBackwardBackward0 with only grad_output
    dual: PyTorch's term is elementwise (/ numel for the mean), not reduced to a number."""
    assert_parity(_bce_double_dual_grad_output, reduction, rtol=1e-9, atol=1e-12)
