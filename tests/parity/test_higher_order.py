"""Parity: higher-order gradients through ``create_graph`` (float64) — full Hessians, including
mixed second derivatives between two inputs, for pointwise ops, matmul, reductions,
softmax/log_softmax, MSE and cross-entropy; third derivatives; ``backward(create_graph=True)``
followed by a backward through ``x.grad``.

Most of minigrad's backward formulas are written with tensor ops, so deep gradient graphs are
built from partly different nodes than PyTorch's (``mean``'s ``/ numel`` is ``DivBackward0``
here, ``DivBackward1`` there): values and ``requires_grad`` are compared, not node names. The
fused derivative kernels (tanh, sigmoid, relu, softmax, log_softmax) record PyTorch's own nodes,
checked in test_node_coverage.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy
from tests.parity.test_tensor_meta import mk

RNG = np.random.default_rng(3)
A = RNG.standard_normal((2, 3)) * 0.7
B = RNG.standard_normal((3, 2)) * 0.7
T = RNG.standard_normal((2, 3)) * 0.7
W = RNG.standard_normal((2, 3)) * 0.7
RNG3 = RNG.standard_normal((2, 3, 4))

FUNCS = {
    "pointwise": lambda lib, a, b: (a.exp() * a.sin() + a.tanh() ** 2 / (1 + a * a)).sum()
    + (a.sigmoid() * b.t()).sum(),
    "relu_abs_clamp": lambda lib, a, b: ((a.relu() + 0.1) ** 3 * a.abs()).sum()
    + (a.clamp(-0.5, 0.5) * b.t()).pow(2).sum(),
    "matmul": lambda lib, a, b: ((a @ b) ** 2).sum() + (a @ b).tanh().sum(),
    "matmul_chain": lambda lib, a, b: (a @ b @ a).sin().sum(),
    "reductions": lambda lib, a, b: (a.sum(1) ** 2).sum() + a.mean() ** 3
    + (a * b.t()).amax(1).sum() + a.var(1).sum() + a.std() * b.sum(),
    "logsumexp": lambda lib, a, b: a.logsumexp(1).pow(2).sum() + b.logsumexp(0).sum(),
    "softmax": lambda lib, a, b: (a.softmax(1) * b.t()).sum() + (a.softmax(0) ** 2).sum(),
    "log_softmax": lambda lib, a, b: (a.log_softmax(1) * b.t()).sum()
    + lib.nn.functional.log_softmax(a * b.t(), 0).exp().pow(3).sum(),
    "leaky_relu_softplus": lambda lib, a, b: (lib.nn.functional.leaky_relu(a, 0.2)
                                              * lib.nn.functional.softplus(b.t(), 2, 1.5)).sum()
    + lib.nn.functional.softplus(a * b.t()).pow(2).sum(),
    "silu": lambda lib, a, b: (lib.nn.functional.silu(a) * lib.nn.functional.silu(b.t())).sum()
    + lib.nn.functional.silu(a * b.t()).pow(2).sum(),
    "mse": lambda lib, a, b: lib.nn.functional.mse_loss(a.tanh(), b.t())
    + lib.nn.functional.mse_loss(a, b.t() * 2, reduction="sum"),
    "cross_entropy": lambda lib, a, b: lib.nn.functional.cross_entropy(
        a @ b, lib.tensor(np.array([1, 0])).to(a.device)),
    "linear": lambda lib, a, b: (lib.nn.functional.linear(a, b.t(), b[:2, 0]) + 1).relu()
    .pow(3).sum(),
}



def _written(lib, a, b, index):
    """``a`` with a function of ``b`` written into it in place (CopySlices / IndexPutBackward0)."""
    x = a * 1
    x[index(lib, a)] = (b[:2, 0] * b[1, 1]) ** 2
    return (x ** 3).sum() + (x * a).sum()


FUNCS.update({
    "setitem_index_tensor": lambda lib, a, b: _written(
        lib, a, b, lambda lib, a: (lib.tensor(np.array([0, 1])).to(a.device), 1)),
    "setitem_mask": lambda lib, a, b: _written(
        lib, a, b, lambda lib, a: lib.tensor(np.array([[True, False, True],
                                                       [False, False, False]])).to(a.device)),
    "setitem_slice": lambda lib, a, b: _written(lib, a, b, lambda lib, a: (slice(None), 2)),
})


def _hessian(lib, y, inputs):
    """Full Hessian of scalar ``y``: blocks ``H[i][j]`` = d2y / d inputs[i] d inputs[j]."""
    grads = lib.autograd.grad(y, inputs, create_graph=True)
    blocks = []
    for g in grads:
        flat = g.reshape(-1)
        rows = []
        for k in range(flat.numel()):
            second = lib.autograd.grad(flat[k], inputs, retain_graph=True, allow_unused=True)
            rows.append([np.zeros(x.numel()) if s is None else to_numpy(s).reshape(-1)
                         for s, x in zip(second, inputs)])
        blocks.append([np.stack([r[j] for r in rows]) for j in range(len(inputs))])
    return [to_numpy(g) for g in grads], [g.requires_grad for g in grads], blocks


@pytest.mark.parametrize("fn", list(FUNCS))
def test_hessian(fn, device):
    def scenario(lib, device):
        a = lib.tensor(A, requires_grad=True)
        b = lib.tensor(B, requires_grad=True)
        if lib.__name__ == "torch":
            a, b = (t.detach().to(device).requires_grad_() for t in (a, b))
        y = FUNCS[fn](lib, a, b)
        return to_numpy(y), _hessian(lib, y, (a, b))

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "leaky_relu_softplus", "mse",
                                "matmul"])
def test_third_order(fn, device):
    """Differentiate a Hessian-vector product once more."""

    def scenario(lib, device):
        a = lib.tensor(A, requires_grad=True)
        b = lib.tensor(B, requires_grad=True)
        if lib.__name__ == "torch":
            a, b = (t.detach().to(device).requires_grad_() for t in (a, b))
        y = FUNCS[fn](lib, a, b)
        (ga,) = lib.autograd.grad(y, a, create_graph=True)
        (hv,) = lib.autograd.grad((ga * ga).sum(), a, create_graph=True)
        (third,) = lib.autograd.grad((hv * lib.tensor(T).to(a.device)).sum(), a,
                                     allow_unused=True)
        return [to_numpy(t) for t in (ga, hv, third)], hv.requires_grad

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-10)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph_then_gradient_penalty(device):
    """A gradient penalty as in WGAN-GP: ``backward(create_graph=True)`` leaves ``.grad`` with
    a graph; a loss on it is backpropagated into the parameters."""

    def scenario(lib, device):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2).double()
        lin.load_state_dict({"weight": lib.tensor(W), "bias": lib.tensor([0.1, -0.2]).double()})
        lin = lin.to(device)
        x = lib.tensor(A)
        if lib.__name__ == "torch":
            x = x.to(device)
        x.requires_grad_()
        out = lib.nn.functional.softplus(lin(x)).sum()
        out.backward(create_graph=True)
        gx = x.grad
        meta = (gx.requires_grad, lin.weight.grad.requires_grad)
        for p in (x, lin.weight, lin.bias):
            p.grad = None
        penalty = ((gx.pow(2).sum(1) - 1) ** 2).mean()
        penalty.backward()
        return meta, to_numpy(penalty), [to_numpy(p.grad) for p in (x, lin.weight, lin.bias)]

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-10)


def test_grad_of_grad_graph_and_accumulation(device):
    """``create_graph`` gradients require grad and have a grad_fn; without it they do not;
    ``x.grad`` set by ``backward(create_graph=True)`` accumulates out of place."""

    def scenario(lib, device):
        x = lib.tensor(A[0])
        if lib.__name__ == "torch":
            x = x.to(device)
        x.requires_grad_()
        (g,) = lib.autograd.grad((x ** 3).sum(), x, create_graph=True)
        (plain,) = lib.autograd.grad((x ** 3).sum(), x)
        out = {"create_graph": (g.requires_grad, g.grad_fn is not None, g.is_leaf),
               "plain": (plain.requires_grad, plain.grad_fn is None)}
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x ** 3).sum().backward(create_graph=True)
            first = x.grad
            (x ** 3).sum().backward(create_graph=True)
        out["accumulated"] = (x.grad is first, to_numpy(x.grad), x.grad.requires_grad)
        (gg,) = lib.autograd.grad(x.grad.sum(), x)
        out["second"] = to_numpy(gg)
        return out

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-10)


SUMS = {"dim": lambda x: x.sum(1), "dims": lambda x: x.sum((0, 2)), "negative": lambda x: x.sum(-1),
        "keepdim": lambda x: x.sum(1, keepdim=True), "all": lambda x: x.sum()}
# formulas written as PyTorch's (plain-number factors as Tensor-Scalar ops, fused kernels)
SAME_GRAPH = {
    **{f"sum_{k}": f for k, f in SUMS.items()},
    "mean": lambda x: x.mean(), "mean_dims": lambda x: x.mean((0, 2)),
    "mean_keepdim": lambda x: x.mean(-1, keepdim=True),
    "var": lambda x: x.var(1), "var_all": lambda x: x.var(), "std": lambda x: x.std(1),
    "std_keepdim": lambda x: x.std(2, keepdim=True, correction=0),
    "amax": lambda x: x.amax(1), "amin_all": lambda x: x.amin((0, 1, 2)),
    "amax_keepdim": lambda x: x.amax(-1, keepdim=True),
    "softmax": lambda x: x.softmax(1), "log_softmax": lambda x: x.log_softmax(-1),
    "relu": lambda x: x.relu(), "tanh": lambda x: x.tanh(), "sigmoid": lambda x: x.sigmoid(),
}
# (functions of the library too)
SAME_GRAPH_F = {
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.1),
    "leaky_relu_inplace": lambda lib, x: lib.nn.functional.leaky_relu(x * 1, 0.1, inplace=True),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x, 2, 1.0),
    "silu": lambda lib, x: lib.nn.functional.silu(x),
    "abs": lambda lib, x: x.abs(), "cos": lambda lib, x: x.cos(),
    "pow_int": lambda lib, x: x ** 3, "pow_float": lambda lib, x: (x * x + 1) ** 1.5,
    "mse_mean": lambda lib, x: lib.nn.functional.mse_loss(x, x * 0.5 + 1),
    "mse_sum": lambda lib, x: lib.nn.functional.mse_loss(x, x * 0.5 + 1, reduction="sum"),
    "mse_none": lambda lib, x: lib.nn.functional.mse_loss(x, x * 0.5 + 1, reduction="none"),
}


def _of_x(f):
    return lambda lib, x: f(x)


SAME_GRAPH_F.update({k: _of_x(f) for k, f in SAME_GRAPH.items()})


@pytest.mark.parametrize("name", list(SAME_GRAPH_F))
def test_gradient_graph_under_create_graph(name, device):
    """Where minigrad's formula is PyTorch's, so is the gradient's graph, node for node: sum's
    backward puts the reduced dims back one ``unsqueeze`` at a time (UnsqueezeBackward0 nodes,
    not a reshape's ViewBackward0), then expands; mean divides by a plain number
    (DivBackward1), var scales by one (MulBackward1), std masks with masked_fill, amax divides
    by the count of maxima and multiplies by their mask; (log_)softmax, relu, tanh, sigmoid,
    leaky_relu, softplus and mse_loss are fused kernels with their own double-backward
    nodes; abs multiplies by sgn, cos by -sin, pow by exponent * self^(exponent - 1)."""
    f = SAME_GRAPH_F[name]

    def scenario(lib, device):
        x = mk(lib, device, RNG3, requires_grad=True)
        shape = tuple(f(lib, x).shape)
        w = mk(lib, device, np.linspace(0.5, 2, int(np.prod(shape))).reshape(shape),
               requires_grad=True)
        g, = lib.autograd.grad((f(lib, x) * w).sum(), x, create_graph=True)
        return graph_trace(g), to_numpy(g)

    assert_parity(scenario, device=device)
