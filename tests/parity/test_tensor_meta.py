"""Parity: Tensor autograd metadata (requires_grad, is_leaf, grad_fn, .grad, retain_grad,
detach/.data, version counters, item/numpy, repr) — minigrad vs PyTorch.

Facts doc sections 1.8, 3.1 and 7. Every scenario is written once as a function of ``lib``.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, node_name, to_numpy

ARR = np.array([1.0, 2.0, 3.0], dtype=np.float32)
MAT = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1


def mk(lib, device, arr=ARR, requires_grad=False):
    """A leaf from ``arr`` (torch side on ``device``)."""
    t = lib.tensor(np.array(arr))
    if lib.__name__ == "torch":
        t = t.to(device)
    return t.requires_grad_() if requires_grad else t


def warned(fn):
    """Run ``fn()``; return (its result, list of warning category names it emitted)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [x.category.__name__ for x in w]


def err(fn, *phrases):
    """(exception type name, message or phrase flags) of what ``fn()`` raises, or None.

    Without phrases the whole message is returned, normalised: ``torch`` -> ``minigrad``, CUDA
    legacy names -> CPU ones, PyTorch's "(Triggered internally ...)" suffix dropped.
    """
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        msg = str(e).split(" (Triggered internally")[0]
        if phrases:
            return type(e).__name__, [p in msg for p in phrases]
        return type(e).__name__, msg.replace("torch.cuda.", "torch.").replace("torch", "minigrad")
    return None


def meta(t):
    """requires_grad, is_leaf, grad_fn name of a tensor."""
    return t.requires_grad, t.is_leaf, node_name(t.grad_fn)


# ------------------------------------------------------------------ requires_grad / is_leaf
def test_meta_table(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        plain = mk(lib, device)
        with lib.no_grad():
            under_no_grad = x * 2
        cases = {
            "leaf": x, "plain": plain, "x*2": x * 2, "x+plain": x + plain, "clone": x.clone(),
            "plain*2": plain * 2, "detach": x.detach(), "data": x.data,
            "detach*2": x.detach() * 2, "double": x.double(), "x[0]": x[0],
            "x.sum()>0": x.sum() > 0, "argmax": x.argmax(), "int": x.int(),
            "(x>0).float()": (x > 0).float(), "no_grad": under_no_grad,
            "detach_req": (x * 2).detach().requires_grad_(), "plain_req": plain.requires_grad_(),
        }
        return {k: meta(t) for k, t in cases.items()}

    assert_parity(scenario, device=device)


def test_requires_grad_errors(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        ints = lib.tensor([1, 2])

        def set_attr():
            (x * 2).requires_grad = False

        def set_int_attr():
            lib.tensor([1, 2]).requires_grad = True

        y = x * 2
        return {
            "nonleaf_false": err(lambda: (x * 2).requires_grad_(False)),
            "nonleaf_attr": err(set_attr),
            "nonleaf_true_is_self": y.requires_grad_(True) is y,
            "int_method": err(lambda: ints.requires_grad_()),
            "int_setter": err(set_int_attr),
            "int_false_ok": err(lambda: ints.requires_grad_(False)),
            "factory_int": err(lambda: lib.tensor([1, 2], requires_grad=True)),
            "leaf_off_on": (x.requires_grad_(False).requires_grad, x.requires_grad_().is_leaf),
        }

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ .grad
def test_grad_access_and_warning(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        h = x * 2
        r = x * 3
        r.retain_grad()
        with lib.no_grad():
            ng = x * 2
        out = {
            "fresh_leaf": warned(lambda: x.grad),
            "plain": warned(lambda: mk(lib, device).grad),
            "nonleaf": warned(lambda: h.grad),
            "select": warned(lambda: x[0].grad),
            "no_grad_result": warned(lambda: ng.grad),
            "detach": warned(lambda: x.detach().grad),
            "retains": warned(lambda: r.grad),
        }
        (h.sum() + r.sum()).backward()
        out["nonleaf_after"] = warned(lambda: h.grad)
        out["retains_after"] = to_numpy(warned(lambda: r.grad)[0]), warned(lambda: r.grad)[1]
        h2 = x * 2
        h2.grad = lib.ones_like(h2)  # a set grad: no warning on access
        out["set_on_nonleaf"] = to_numpy(warned(lambda: h2.grad)[0]), warned(lambda: h2.grad)[1]
        out["x.grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


def test_non_leaf_grad_warning_text():
    import torch

    import minigrad

    msgs = []
    for lib in (minigrad, torch):
        h = lib.tensor([1.0], requires_grad=True) * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert h.grad is None
        msgs.append(str(w[0].message).split(" (Triggered internally")[0])
    assert msgs[0] == msgs[1]


def test_grad_setter(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        # minigrad has no ``grad_dtype`` attribute, so it leaves out the advice about setting it
        dtype_msg = ("attempting to assign a gradient with dtype 'double' to a tensor with "
                     "grad_dtype 'Float'. The gradient must match the tensor's grad_dtype",
                     "'long int'")
        out = {
            "type": err(lambda: setattr(x, "grad", 3)),
            "shape": err(lambda: setattr(x, "grad", mk(lib, device, np.ones(2, np.float32)))),
            "shape2d": err(lambda: setattr(x, "grad", mk(lib, device, np.ones((3, 1),
                                                                             np.float32)))),
            "double": err(lambda: setattr(x, "grad", mk(lib, device, np.ones(3))), *dtype_msg),
            "long": err(lambda: setattr(x, "grad", mk(lib, device, np.ones(3, np.int64))),
                        dtype_msg[1]),
            "after_errors": x.grad,
        }
        x.grad = mk(lib, device, np.ones(3, np.float32))
        g = x.grad
        (x * 3).sum().backward()
        out["accumulated"] = to_numpy(x.grad)
        out["same_object"] = x.grad is g
        out["grad_version"] = x.grad._version
        x.grad = None
        out["none"] = x.grad
        return out

    assert_parity(scenario, device=device)


def test_retain_grad(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        x.retain_grad()
        h = x * 2
        before = h.retains_grad
        h.retain_grad()
        h.retain_grad()  # twice is harmless
        y = (h * h).sum()
        y.backward(retain_graph=True)
        g1 = to_numpy(h.grad)
        y.backward()
        return {
            "leaf_retains": x.retains_grad, "before": before, "after": h.retains_grad,
            "g1": g1, "g2": to_numpy(h.grad), "x.grad": to_numpy(x.grad),
            "plain": err(lambda: mk(lib, device).retain_grad()),
            "is_leaf": h.is_leaf,
        }

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ detach, .data, versions
def test_detach_and_data_version_counters(device):
    def scenario(lib, device):
        x = mk(lib, device, MAT, requires_grad=True)
        b = x * 1
        d = b.detach()
        dat = b.data
        out = {"detach": meta(d), "data": meta(dat), "d_is_view": d._is_view()}
        d.add_(1)
        out["after_detach_add"] = (b._version, d._version, dat._version)
        dat.mul_(2)
        out["after_data_mul"] = (b._version, d._version, dat._version)
        out["fresh_data_version"] = b.data._version
        out["values"] = to_numpy(b)  # all three share memory
        with lib.no_grad():
            x.add_(1)
            x[0] = 5.0
        out["leaf_no_grad"] = x._version
        x.detach().add_(1)
        out["leaf_detach"] = x._version
        x.data.add_(1)
        held = x.data
        held.zero_()
        out["leaf_data"] = (x._version, held._version)
        x.data = mk(lib, device, np.ones((3, 4), np.float32))
        out["data_assigned"] = (x._version, to_numpy(x), meta(x))
        return out

    assert_parity(scenario, device=device)


INPLACE = {
    "add_": lambda b, lib: b.add_(1),
    "mul_": lambda b, lib: b.mul_(2),
    "sub_": lambda b, lib: b.sub_(1),
    "div_": lambda b, lib: b.div_(2),
    "zero_": lambda b, lib: b.zero_(),
    "fill_": lambda b, lib: b.fill_(2.5),
    "copy_": lambda b, lib: b.copy_(lib.zeros(4)),
    "clamp_": lambda b, lib: b.clamp_(0, 1),
    "relu_": lambda b, lib: b.relu_(),
    "sigmoid_": lambda b, lib: b.sigmoid_(),
    "iadd": lambda b, lib: b.__iadd__(1),
    "imul": lambda b, lib: b.__imul__(3),
    "setitem_int": lambda b, lib: b.__setitem__(0, 1.0),
    "setitem_slice": lambda b, lib: b.__setitem__((slice(None), slice(1, None)), 2.0),
    "setitem_mask": lambda b, lib: b.__setitem__(b > 0, 0.0),
    "setitem_idx": lambda b, lib: b.__setitem__(lib.tensor([0, 2]), 3.0),
    "chained": lambda b, lib: b.add_(1).mul_(2),
}


@pytest.mark.parametrize("op", list(INPLACE))
def test_version_after_inplace(op, device):
    def scenario(lib, device):
        a = mk(lib, device, MAT)
        ret = INPLACE[op](a, lib)
        out = {"version": a._version, "values": to_numpy(a)}
        if ret is not None:
            out["returns_self"] = ret is a
        # the same op under no_grad on a leaf that requires grad
        x = mk(lib, device, MAT, requires_grad=True)
        with lib.no_grad():
            INPLACE[op](x, lib)
        out["leaf_no_grad"] = (x._version, meta(x), to_numpy(x))
        return out

    assert_parity(scenario, device=device)


def test_views_share_version_counter(device):
    def scenario(lib, device):
        base = mk(lib, device, MAT)
        v, w, s = base[0], base.t(), base[:, 1:]
        d = base.detach()
        steps = []
        v.mul_(2)
        steps.append((base._version, v._version, w._version, s._version, d._version))
        base.add_(1)
        later = base.view(12)
        steps.append((base._version, v._version, later._version))
        base.t().zero_()
        steps.append((base._version, base.reshape(12)._version, base.transpose(0, 1)._version))
        d.add_(1)
        steps.append((base._version, later._version))
        out_of_place = (base + 1, base.exp(), base.clone())
        steps.append(tuple(t._version for t in out_of_place) + (base._version,))
        return steps

    assert_parity(scenario, device=device)


def test_out_of_place_keeps_input_version(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        y = x * 2
        y.add_(1)
        y.sum().backward()
        return x._version, y._version, to_numpy(x.grad)

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ item / numpy / repr
def test_item_and_numpy(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        s = (x * 2).sum()
        one = mk(lib, device, np.array([2.5], np.float32), requires_grad=True)
        return {
            "item_scalar": s.item(), "item_one": one.item(), "item_type": type(s.item()).__name__,
            "item_int": lib.tensor(7).item(), "item_bool": lib.tensor(True).item(),
            "item_many": err(lambda: x.item()),
            "item_empty": err(lambda: lib.zeros(0).item()),
            # .cpu() first: on CUDA, torch refuses numpy() for the device before the grad check
            "numpy_req": err(lambda: x.cpu().numpy()),
            "numpy_nonleaf": err(lambda: (x * 2).cpu().numpy()),
            "numpy_detached": x.detach().cpu().numpy(),
        }

    assert_parity(scenario, device=device)


def test_numpy_shares_memory():
    import minigrad

    t = minigrad.ones(3)
    t.numpy()[0] = 5
    assert t[0].item() == 5.0


REPRS = [
    lambda lib, x: x,
    lambda lib, x: x * 2,
    lambda lib, x: (x * 2).sum(),
    lambda lib, x: x[0],
    lambda lib, x: x.detach(),
    lambda lib, x: lib.tensor(2.5),
    lambda lib, x: lib.tensor(-0.5, requires_grad=True),
    lambda lib, x: lib.tensor([1, 2]),
    lambda lib, x: lib.tensor([True, False]),
    lambda lib, x: lib.tensor([0.1, -2.5]),
    lambda lib, x: lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
    lambda lib, x: lib.tensor([[1.5, -2.0], [3.0, 4.0]]) * x[:2],
    lambda lib, x: lib.tensor([1.0, 2.0], dtype=lib.float64),
    lambda lib, x: lib.tensor([1, 2], dtype=lib.int32),
    lambda lib, x: lib.tensor([1.5e10, 1.0]),
    lambda lib, x: lib.tensor([float("nan"), 1.0]),
    lambda lib, x: lib.tensor([float("inf"), 1.5]),
    lambda lib, x: lib.tensor([100.0, 2.5]),
    lambda lib, x: lib.tensor([123456.789, 1.0]),
    lambda lib, x: lib.tensor([1e-5, 1.0]),
    lambda lib, x: lib.tensor([0.0, 0.0]),
    lambda lib, x: lib.zeros(0),
    lambda lib, x: lib.zeros(2, 3, 2),
    lambda lib, x: lib.arange(30).float() / 7,
    lambda lib, x: lib.arange(2000).float(),
    lambda lib, x: lib.arange(12).reshape(3, 4) - 5,
    lambda lib, x: lib.tensor([[1.0, 2.0]]).t(),
    lambda lib, x: (lib.arange(3000).reshape(10, 3, 100) % 7).float() - 0.5,
    lambda lib, x: lib.ones(2, 17, requires_grad=True) * 1,
    lambda lib, x: lib.ones(2, 19, dtype=lib.float64, requires_grad=True),
    lambda lib, x: lib.zeros(2, 0),
    lambda lib, x: lib.zeros(0, dtype=lib.int64),
    lambda lib, x: lib.tensor([1.0, 2.0], dtype=lib.float16),
    lambda lib, x: lib.tensor([-1.0, float("nan"), 3.0]),
]


@pytest.mark.parametrize("k", range(len(REPRS)))
def test_repr(k):
    """repr matches PyTorch's text after replacing 'torch' by 'minigrad' (CPU tensors)."""

    def scenario(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return repr(REPRS[k](lib, x)).replace("torch", "minigrad")

    assert_parity(scenario)


def test_repr_suffix_on_device(device):
    def scenario(lib, device):
        x = mk(lib, device, requires_grad=True)
        return [repr(t).rsplit(", ", 1)[-1] for t in (x, x * 2, (x * 2).sum())]

    assert_parity(scenario, device=device)


def _formats(lib):
    out = [f"{lib.tensor(2.0)}", f"{lib.tensor(2.0):.3f}", f"{lib.tensor([2.0])}",
           format(lib.tensor(3)), f"{lib.tensor(True)}"]
    try:
        f"{lib.tensor([2.0]):.3f}"
    except TypeError as e:
        out.append(("TypeError", str(e).split(" passed")[0]))
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(1.0), lib.ones(()))
        out.append(repr(d * 2))
    return out


def test_format_of_a_0_dim_tensor_is_its_number():
    """``Tensor.__format__``: a 0-dim tensor formats as ``item()`` (``f"{loss:.4f}"``; the
    repr of a 0-dim tangent, ``tangent=2.0``, comes from it), others as repr."""
    assert_parity(_formats)
