"""Parity: version counters through sequences of in-place ops on bases and views, the errors
PyTorch raises for views that cannot have their history rewritten, hooks and ``retain_grad``
across an in-place op, and the ``_version`` of a freshly accumulated ``.grad``.

Facts doc sections 3.1-3.3; every scenario is written once as a function of ``lib``.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

MAT = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1


def _names(*tensors):
    return [node_name(t.grad_fn) for t in tensors]


# ------------------------------------------------------------------ sequences of versions
def test_version_sequence_on_base_and_views(device):
    """One storage seen through a base, slice/transpose/unbind/split views, ``detach()`` and
    ``.data``: every in-place op (with grad, under no_grad, through any alias) bumps the shared
    counter, except through ``.data`` which has its own."""

    def scenario(lib, device):
        x = mk(lib, device, MAT, requires_grad=True)
        b = x * 1
        v, t, u, s, d, dat = b[1], b.t(), b.unbind(0), b.split(2), b.detach(), b.data
        steps = []

        def snap(label):
            steps.append((label, b._version, v._version, t._version, u[0]._version,
                          s[1]._version, d._version, dat._version))

        snap("start")
        v.add_(1)
        snap("view add_")
        t.mul_(2)
        snap("t mul_")
        d.zero_()
        snap("detach zero_")
        dat.add_(1)
        snap(".data add_")
        with lib.no_grad():
            u[2].mul_(3)
            snap("no_grad unbind view")
            s[0].add_(1)
            snap("no_grad split view")
        b.data.add_(1)
        snap("fresh .data")
        b.clamp_(-10, 10)  # (relu_ would save its result, which later ops modify)
        snap("clamp_")
        b[0, 0] = 2.0
        snap("setitem")
        b += 1
        snap("iadd")
        e, sq, p, r = b.expand(2, 3, 4), b.unsqueeze(0).squeeze(0), b.permute(1, 0), b.reshape(12)
        p.sub_(1)
        steps.append(("late views", b._version, e._version, sq._version, r._version,
                      b.data._version, x._version))
        steps.append(_names(b, v, t, e, sq, p, r))
        steps.append(to_numpy(b))
        b.sum().backward()
        steps.append(to_numpy(x.grad))
        return steps

    assert_parity(scenario, device=device)


def test_leaf_versions_with_data_detach_and_no_grad(device):
    def scenario(lib, device):
        p = mk(lib, device, MAT, requires_grad=True)
        out = []
        d = p.data
        out.append((p._version, d._version))
        p.data.add_(1)
        p.data.mul_(2)
        d.zero_()
        out.append((p._version, d._version, to_numpy(p)))
        with lib.no_grad():
            p.add_(1)
            v = p[0]
            v.mul_(2)
            p[1] = 5.0
        out.append((p._version, v._version))
        p.detach().add_(1)
        p.detach()[2].sub_(1)
        out.append((p._version, v._version))
        p.data = mk(lib, device, np.ones((3, 4), np.float32))
        out.append((p._version, to_numpy(p), p.is_leaf, p.requires_grad))
        y = p * 2
        y.add_(1)
        y.sum().backward()
        out.append((p._version, y._version, to_numpy(p.grad), p.grad._version))
        return out

    assert_parity(scenario, device=device)


# every in-place op of the issue list (and the optimizer helpers): on a non-leaf (version,
# new node, returns self, gradient), on a plain tensor, under no_grad on a leaf, and refused on
# a leaf with grad mode on
INPLACE_OPS = {
    "add_": lambda t: t.add_(2), "sub_": lambda t: t.sub_(1), "mul_": lambda t: t.mul_(3),
    "div_": lambda t: t.div_(2), "pow_": lambda t: t.pow_(2), "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(0.5), "copy_": lambda t: t.copy_(t.detach() * 0 + 2),
    "clamp_": lambda t: t.clamp_(1.5, 2.5), "relu_": lambda t: t.relu_(),
    "sigmoid_": lambda t: t.sigmoid_(), "tanh_": lambda t: t.tanh_(), "exp_": lambda t: t.exp_(),
    "neg_": lambda t: t.neg_(), "setitem": lambda t: t.__setitem__(0, 5.0),
    "iadd": lambda t: t.__iadd__(1), "isub": lambda t: t.__isub__(1),
    "imul": lambda t: t.__imul__(2), "idiv": lambda t: t.__itruediv__(2),
    "clamp_min_": lambda t: t.clamp_min_(1.5), "masked_fill_": lambda t: t.masked_fill_(t > 2, 0.0),
    "addcmul_": lambda t: t.addcmul_(t * 1, t * 2, value=0.5),
    "addcdiv_": lambda t: t.addcdiv_(t * 1, t + 1, value=0.5),
    "lerp_": lambda t: t.lerp_(t * 0 + 1, 0.3), "chained": lambda t: t.add_(1).mul_(2).neg_(),
}


@pytest.mark.parametrize("op", list(INPLACE_OPS))
def test_every_inplace_op(op, device):
    def scenario(lib, device):
        f = INPLACE_OPS[op]
        x = mk(lib, device, np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)
        b = x * 1
        ret = f(b)
        out = {"nonleaf": (b._version, node_name(b.grad_fn), ret is b, to_numpy(b))}
        b.sum().backward()
        out["grad"] = to_numpy(x.grad)
        p = mk(lib, device, np.array([1.0, 2.0, 3.0], np.float32))
        f(p)
        out["plain"] = (p._version, to_numpy(p), p.requires_grad)
        with lib.no_grad():
            f(x)
        out["leaf_no_grad"] = (x._version, to_numpy(x), x.is_leaf)
        out["leaf"] = err(lambda: f(x))
        out["leaf_view"] = err(lambda: f(x[1:]))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ special views
def test_multi_output_views_after_base_modified(device):
    """unbind/split/chunk outputs: in-place on them is refused; after their base (or a
    sibling) changed in place, using them (``grad_fn``, ops) is refused too — also when the
    change happened under no_grad — while ``requires_grad`` and ``_version`` stay readable. A
    view of such a view inherits the restriction."""

    def scenario(lib, device):
        x = mk(lib, device, np.ones((3, 4), np.float32), requires_grad=True)
        out = {}
        b = x * 2
        u, s, c = b.unbind(0), b.split(1), b.chunk(3)
        uu = u[0].view(2, 2)
        out["direct"] = [err(lambda: u[1].mul_(2)), err(lambda: s[1].add_(1)),
                         err(lambda: c[0].zero_()), err(lambda: u[0].__setitem__(0, 1.0)),
                         err(lambda: uu.mul_(2))]
        out["versions"] = (b._version, u[1]._version)
        b.add_(1)
        out["indirect"] = [err(lambda: u[0].grad_fn), err(lambda: s[2].grad_fn),
                           err(lambda: u[1] * 2), err(lambda: c[1].is_leaf),
                           err(lambda: uu.grad_fn)]
        out["readable"] = (u[0].requires_grad, u[0]._version, node_name(b.grad_fn))
        b2 = x * 2
        u2 = b2.unbind(0)
        with lib.no_grad():
            u2[1].mul_(2)
        out["sibling_no_grad"] = [err(lambda: u2[0].grad_fn), err(lambda: u2[1].grad_fn)]
        plain = mk(lib, device, np.ones((2, 3), np.float32))
        pu = plain.unbind(0)
        pu[0].mul_(2)  # nothing requires grad: allowed
        out["plain"] = (plain._version, to_numpy(plain), node_name(pu[1].grad_fn))
        out["plain_by_grad"] = err(lambda: pu[1].mul_(x[0, :3]))
        return out

    assert_parity(scenario, device=device)


def test_no_grad_views_after_base_modified(device):
    """Views made under no_grad of a tensor that requires grad: in-place with grad mode on is
    refused (also on a view of such a view, which has a grad_fn), and so is using them once
    their base changed — even if the change itself happened under no_grad."""

    def scenario(lib, device):
        x = mk(lib, device, np.ones(4, np.float32), requires_grad=True)
        out = {}
        with lib.no_grad():
            v = x[0:3]
        w = v[0:2]
        out["meta"] = (v.requires_grad, v.grad_fn is None, node_name(w.grad_fn), w.requires_grad)
        out["direct"] = [err(lambda: v.mul_(2)), err(lambda: w.mul_(2))]
        out["fresh_use"] = node_name((v * 2).grad_fn)
        with lib.no_grad():
            x.add_(1)
        out["indirect"] = [err(lambda: v.grad_fn), err(lambda: w.grad_fn), err(lambda: v * 2)]
        out["readable"] = (v.requires_grad, v._version, x._version)
        with lib.no_grad():
            v2 = x[1:]
            v2.mul_(2)  # both inside no_grad: fine ...
        out["both_inside"] = (x._version, to_numpy(x))
        out["later_use"] = err(lambda: v2.grad_fn)  # ... but v2 cannot join a graph afterwards
        plain = mk(lib, device, np.ones(4, np.float32))
        with lib.no_grad():
            pv = plain[0:3]
        pv.mul_(2)
        out["plain_view"] = (plain._version, err(lambda: pv.mul_(x[:3])))
        return out

    assert_parity(scenario, device=device)


def test_inplace_through_view_of_leaf_and_saved_view(device):
    """Facts §3.2 rows: a Linear weight (saved as ``weight.t()``) modified under no_grad gives
    'output 0 of AsStrided'; plus views of a leaf refused in place."""

    def scenario(lib, device):
        out = {}
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 3).to(device)
        x = mk(lib, device, np.ones((2, 3), np.float32), requires_grad=True)
        y = lin(x)
        with lib.no_grad():
            lin.weight.add_(1)
        out["linear"] = (err(lambda: y.sum().backward()), lin.weight._version)
        w = mk(lib, device, np.ones((3, 3), np.float32), requires_grad=True)
        z = x @ w.t()
        with lib.no_grad():
            w.add_(1)
        out["t_view"] = err(lambda: z.sum().backward())
        lin2 = lib.nn.Linear(3, 3).to(device)
        plain = mk(lib, device, np.ones((2, 3), np.float32))
        y2 = lin2(plain)  # the weight is not saved when the input needs no grad
        with lib.no_grad():
            lin2.weight.mul_(2)
        y2.sum().backward()
        out["not_saved"] = (lin2.weight._version, to_numpy(lin2.bias.grad))
        out["view_of_leaf"] = [err(lambda: w[0].mul_(2)), err(lambda: w.view(9).add_(1)),
                               err(lambda: w.t().zero_())]
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ hooks across in-place
def test_hooks_and_retain_grad_registered_before_inplace(device):
    """A hook registered before an in-place op stays with the old value's node (it sees the
    gradient of the *old* value); ``retain_grad()`` follows the tensor to its new node, so
    ``.grad`` is the gradient of the current value — for the tensor itself, for the base of an
    in-place-modified view, and for a view whose history is regenerated lazily."""

    def scenario(lib, device):
        out = {}
        arr = np.array([1.0, 2.0, 3.0], np.float32)
        x = mk(lib, device, arr, requires_grad=True)
        b = x * 2
        calls = []
        b.register_hook(lambda g: calls.append(("before", to_numpy(g))))
        b.retain_grad()
        b.mul_(3)
        b.register_hook(lambda g: calls.append(("after", to_numpy(g))))
        (b * b).sum().backward()
        out["self"] = (calls, to_numpy(b.grad), to_numpy(x.grad), node_name(b.grad_fn))

        x2 = mk(lib, device, arr, requires_grad=True)
        c = x2 * 2
        calls2 = []
        c.register_hook(lambda g: calls2.append(("c", to_numpy(g))))
        c.retain_grad()
        v = c[:2]
        v.retain_grad()
        v.mul_(10)
        (c * c).sum().backward()
        out["base"] = (calls2, to_numpy(c.grad), to_numpy(x2.grad), _names(c, v),
                       c.retains_grad, v.retains_grad)

        x3 = mk(lib, device, arr, requires_grad=True)
        d = x3 * 1
        w = d[1:]
        w.retain_grad()
        d.mul_(2)  # w's history is regenerated (AsStridedBackward0) when next used
        (w * w).sum().backward()
        out["lazy_view"] = (to_numpy(w.grad), to_numpy(x3.grad), node_name(w.grad_fn))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ fresh .grad versions
# The first gradient of a leaf is taken over when only the engine holds it and it is dense
# (version = the gradient's own, usually 0); otherwise copied (version 1). Gradients summed
# in an input buffer are summed in place when nothing else holds them (+1).
# Known differences (backward formulas that build their result differently from PyTorch's):
# x.mean(), x.max(), x[index_tensor], x.max(dim), x.t()/x.permute() multiplied pointwise.
FRESH_GRAD = {
    "root_leaf_gradient": lambda lib, x, y: x.backward(lib.ones(2).to(x.device)),
    "sum": lambda lib, x, y: x.sum().backward(),
    "held_gradient": lambda lib, x, y: (x * 1).backward(lib.ones(2).to(x.device)),
    "add_gradient": lambda lib, x, y: (x + y).backward(lib.ones(2).to(x.device)),
    "sub_gradient": lambda lib, x, y: (x - y).backward(lib.ones(2).to(x.device)),
    "select_twice": lambda lib, x, y: (x[0] + x[1]).backward(),
    "select_thrice": lambda lib, x, y: (x[0] + x[1] + x[0]).backward(),
    "select": lambda lib, x, y: x[0].backward(),
    "slice": lambda lib, x, y: x[:1].sum().backward(),
    "x*x": lambda lib, x, y: (x * x).sum().backward(),
    "x*y": lambda lib, x, y: (x * y).sum().backward(),
    "cat_sum": lambda lib, x, y: lib.cat([x, y]).sum().backward(),
    "cat_mul": lambda lib, x, y: (lib.cat([x, y]) * 2).sum().backward(),
    "stack_mul": lambda lib, x, y: (lib.stack([x, y]) * 2).sum().backward(),
    "expand": lambda lib, x, y: (x.expand(3, 2) * 2).sum().backward(),
    "exp+exp": lambda lib, x, y: (x.exp() + x.exp()).sum().backward(),
    "mm": lambda lib, x, y: (x.view(1, 2) @ y.view(2, 1)).sum().backward(),
    "dot": lambda lib, x, y: (x @ y).backward(),
    "mse": lambda lib, x, y: lib.nn.functional.mse_loss(x, y).backward(),
    "softmax": lambda lib, x, y: (x.softmax(0) * y).sum().backward(),
    "pow": lambda lib, x, y: (x ** 2).sum().backward(),
    "two_sums": lambda lib, x, y: (x.sum() + x.sum()).backward(),
    "sum*2": lambda lib, x, y: (x.sum() * 2).backward(),
    "(x+y)*2": lambda lib, x, y: ((x + y) * 2).sum().backward(),
    "(x+x)*2": lambda lib, x, y: ((x + x) * 2).sum().backward(),
    "x*3+x": lambda lib, x, y: (x * 3 + x).sum().backward(),
    "relu": lambda lib, x, y: x.relu().sum().backward(),
    "view": lambda lib, x, y: x.view(1, 2).sum().backward(),
    "index_tensor": lambda lib, x, y: x[lib.tensor(np.array([1, 1, 0])).to(x.device)].sum()
    .backward(),

    "linear": lambda lib, x, y: lib.nn.functional.linear(x.view(1, 2), y.view(1, 2)).sum()
    .backward(),
}


def test_fresh_grad_version(device):
    def scenario(lib, device):
        out = {}
        for name, fn in FRESH_GRAD.items():
            x = mk(lib, device, np.array([1.0, 2.0], np.float32), requires_grad=True)
            y = mk(lib, device, np.array([3.0, 4.0], np.float32), requires_grad=True)
            fn(lib, x, y)
            first = (x.grad._version, None if y.grad is None else y.grad._version)
            FRESH_GRAD[name](lib, x, y)  # a second backward accumulates in place
            out[name] = first + (x.grad._version,)
        x = mk(lib, device, np.array([1.0, 2.0], np.float32), requires_grad=True)
        y = mk(lib, device, np.array([3.0, 4.0], np.float32), requires_grad=True)
        kept = []
        x.register_hook(kept.append)  # the hook keeps the gradient: it cannot be taken over
        (x * y).sum().backward()
        out["hook_keeps"] = (x.grad._version, y.grad._version)
        return out

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("use", ["t", "permute", "transpose_view"])
def test_fresh_grad_version_of_transposed_gradient(use, device):
    """A gradient that reaches a 2-D leaf transposed (the leaf was used through ``x.t()``)
    breaks .grad's layout contract: .grad is a copy in the leaf's layout (version 1)."""

    def scenario(lib, device):
        x = mk(lib, device, np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        y = {"t": lambda: x.t(), "permute": lambda: x.permute(1, 0),
             "transpose_view": lambda: x.transpose(0, 1)[:, :]}[use]()
        (y * 2).sum().backward()
        return x.grad._version, x.grad.stride(), to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_taken_over_gradient_can_alias_the_given_gradient(device):
    """PyTorch quirk, reproduced: the gradient of ``x.view(2, 2).backward(G)`` is a view of
    ``G``; ``.grad`` takes it over, so the next backward's in-place accumulation changes ``G``
    (and its version)."""

    def scenario(lib, device):
        x = mk(lib, device, np.array([1.0, 2.0, 3.0, 4.0], np.float32), requires_grad=True)
        g = mk(lib, device, np.ones((2, 2), np.float32))
        x.view(2, 2).backward(g)
        first = (x.grad._version, g._version)
        x.view(2, 2).backward(g)
        return first, (x.grad._version, g._version), to_numpy(g), to_numpy(x.grad)

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("steps", [1, 3])
def test_grad_versions_in_training_steps(steps, device):
    """zero_grad(set_to_none=False) zeroes in place (+1); each backward accumulates (+1)."""

    def scenario(lib, device):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2).to(device)
        x = mk(lib, device, np.ones((4, 3), np.float32))
        out = [(lin.weight._version, lin.bias._version)]
        for _ in range(steps):
            lin.zero_grad(set_to_none=False)
            lin(x).relu().sum().backward()
            out.append((lin.weight.grad._version, lin.bias.grad._version))
        return out

    assert_parity(scenario, device=device)


EMPTY_USES = {
    "sum": lambda x: x.sum(), "neg": lambda x: (-x).sum(), "mean": lambda x: x.mean(),
    "square": lambda x: (x * x).sum(), "clone": lambda x: x.clone().sum(),
    "transpose": lambda x: x.transpose(0, -1).neg().sum(),
    "reshape": lambda x: x.reshape(-1).neg().sum(),
    "unsqueeze": lambda x: x.unsqueeze(0).neg().sum(),
    "expand": lambda x: x.expand(2, *x.shape).neg().sum(), "slice": lambda x: x[:1].neg().sum(),
    "sum_dim0": lambda x: x.sum(0).neg().sum(),
}


@pytest.mark.parametrize("origin", ["ndarray", "zeros", "list"])
def test_fresh_grad_version_of_empty_leaf(origin, device):
    """An empty tensor's strides are not NumPy's: PyTorch gives a new one contiguous strides
    (``zeros``, ``tensor(list)``) and keeps an ndarray's (0 for an empty array), and the
    first ``.grad`` is the gradient itself only when its strides fit the leaf's. minigrad
    lays out empty arrays the same way (Tensor's ``_empty_layout``)."""

    def scenario(lib, device):
        out = {}
        for shape in [(0,), (2, 0), (0, 3), (1, 0), (2, 0, 3)]:
            a = np.zeros(shape, np.float32)
            for use, fn in EMPTY_USES.items():
                if origin == "ndarray":
                    x = mk(lib, device, a, requires_grad=True)
                elif origin == "zeros":
                    x = lib.zeros(shape, device=device, requires_grad=True)
                else:  # (an empty list of lists keeps only the leading dims)
                    x = lib.tensor(a.tolist(), device=device, requires_grad=True)
                fn(x).backward()
                out[f"{shape}/{use}"] = (x.stride(), x.grad._version, x.grad.stride())
        return out

    assert_parity(scenario, device=device)
