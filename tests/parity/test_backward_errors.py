"""Parity: errors of backward and of in-place ops — same exception type and message (after
``torch`` -> ``minigrad``), and the state left behind (values, ``_version``, ``.grad``).

Facts doc sections 3.2, 3.3 and 4.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err, mk

X = np.array([1.0, 2.0, 3.0], dtype=np.float32)


# ------------------------------------------------------------------ backward arguments
def test_backward_argument_errors(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        plain = mk(lib, device, X)
        with lib.no_grad():
            ng = (x * 2).sum()
        ones = lambda *s: mk(lib, device, np.ones(s, np.float32))  # noqa: E731
        out = {
            "plain": err(lambda: plain.sum().backward()),
            "no_grad_result": err(lambda: ng.backward()),
            "second_root_plain": err(lambda: lib.autograd.backward([(x * 2).sum(),
                                                                     plain.sum()])),
            "non_scalar": err(lambda: (x * 2).backward()),
            "non_scalar_leaf": err(lambda: x.backward()),
            "shape_2": err(lambda: (x * 2).backward(ones(2))),
            "shape_broadcastable": err(lambda: (x * 2).backward(ones(1, 3))),
            "shape_0dim": err(lambda: (x * 2).backward(ones())),
            "scalar_given_1": err(lambda: (x * 2).sum().backward(ones(1))),
            "count": err(lambda: lib.autograd.backward([(x * 2).sum(), (x * 3).sum()],
                                                       [ones()])),
            "grad_count": err(lambda: lib.autograd.grad([(x * 2).sum(), (x * 3).sum()], x,
                                                        [ones()])),
            "grad_list_of_floats": err(lambda: (x * 2).backward([1.0, 1.0, 1.0])),
            "grad_not_tensor": err(lambda: lib.autograd.grad((x * 2).sum(), x, [2.0])),
            "x.grad": x.grad,
        }
        (x * 2).backward(mk(lib, device, np.ones(3)))  # float64 gradient: accepted, cast
        out["float64_gradient"] = (to_numpy(x.grad), str(x.grad.dtype).split(".")[1])
        return out

    assert_parity(scenario, device=device)


def test_second_backward_message(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        g = to_numpy(x.grad)
        return {"second": err(y.backward), "grad": err(lambda: lib.autograd.grad(y, x)),
                "unchanged": to_numpy(x.grad), "first": g}

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ in-place on leaves / views
LEAF_OPS = {
    "add_": lambda t, lib: t.add_(1),
    "mul_": lambda t, lib: t.mul_(2),
    "zero_": lambda t, lib: t.zero_(),
    "fill_": lambda t, lib: t.fill_(1.0),
    "copy_": lambda t, lib: t.copy_(lib.zeros(3)),
    "clamp_": lambda t, lib: t.clamp_(0, 1),
    "relu_": lambda t, lib: t.relu_(),
    "sigmoid_": lambda t, lib: t.sigmoid_(),
    "iadd": lambda t, lib: t.__iadd__(1),
    "setitem": lambda t, lib: t.__setitem__(0, 1.0),
    "setitem_slice": lambda t, lib: t.__setitem__(slice(1, None), 0.0),
    "setitem_mask": lambda t, lib: t.__setitem__(t > 1, 0.0),
    "slice_mul_": lambda t, lib: t[0:2].mul_(2),
    "view_add_": lambda t, lib: t.view(3).add_(1),
    "select_zero_": lambda t, lib: t[1].zero_(),
}


@pytest.mark.parametrize("op", list(LEAF_OPS))
def test_inplace_on_leaf_rejected(op, device):
    """Rejected before anything changes: values and ``_version`` are those of before."""

    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = {"error": err(lambda: LEAF_OPS[op](x, lib))}
        out["after"] = (x._version, to_numpy(x), x.grad, x.grad_fn)
        with lib.no_grad():
            LEAF_OPS[op](x, lib)  # allowed under no_grad
        out["no_grad"] = (x._version, to_numpy(x), x.is_leaf, x.requires_grad)
        return out

    assert_parity(scenario, device=device)


def test_multi_output_views_rejected(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        h = x * 1
        out = {}
        for name, fn in {"unbind_leaf": lambda: x.unbind(0)[1].mul_(2),
                         "unbind": lambda: h.unbind(0)[1].mul_(2),
                         "unbind_0": lambda: h.unbind(0)[0].add_(1),
                         "split": lambda: h.split(1)[2].mul_(2),
                         "chunk": lambda: h.chunk(3)[1].zero_(),
                         "split_sizes": lambda: h.split([1, 2])[1].mul_(2)}.items():
            out[name] = err(fn)
        out["after"] = (h._version, to_numpy(h))
        with lib.no_grad():
            h.unbind(0)[1].mul_(2)  # fine without grad mode
        out["no_grad"] = (h._version, to_numpy(h))
        return out

    assert_parity(scenario, device=device)


def test_setitem_value_types(device):
    def scenario(lib, device):
        b = mk(lib, device, X)
        out = {k: err(lambda v=v: b.__setitem__(0, v)) for k, v in {
            "list": [1.0], "tuple": (1.0,), "ndarray": np.ones(1), "np_scalar": np.float32(2),
            "none": None}.items()}
        b[1] = True
        b[2] = 7
        out["values"] = (to_numpy(b), b._version)
        return out

    assert_parity(scenario, device=device)


def test_no_grad_view_modified_with_grad_mode(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        with lib.no_grad():
            v = x[0:2]
        out = {"error": err(lambda: v.mul_(2)), "after": (v._version, to_numpy(x))}
        with lib.no_grad():
            v.mul_(2)
        out["inside"] = (x._version, to_numpy(x))
        plain = mk(lib, device, X)
        with lib.no_grad():
            pv = plain[0:2]
        pv.mul_(2)  # base does not require grad: fine
        out["plain"] = (plain._version, to_numpy(plain))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ saved tensor modified
def _sigmoid_output(lib, x):
    y = x.sigmoid()
    y.mul_(2)
    return y.sum()


def _leaf_modified_no_grad(lib, x):
    w = x.detach().clone().requires_grad_()
    a = x * w
    with lib.no_grad():
        w.mul_(2)
    return a.sum()


def _plain_modified(lib, x):
    w = x.detach().clone()
    a = x * w
    w.mul_(2)
    return a.sum()


def _input_rewritten_by_add(lib, x):
    h = x * 2
    a = h * h
    h.add_(1)
    return a.sum()


def _exp_then_exp_(lib, x):
    y = x.exp()
    y.exp_()
    return y.sum()


def _twice_modified(lib, x):
    y = x.tanh()
    y.mul_(2)
    y.add_(1)
    return y.sum()


def _detach_modified(lib, x):
    h = x * 3
    a = h.exp() * h
    h.detach().add_(1)
    return a.sum()


def _consumer_saved_nothing(lib, x):
    h = x * 2
    a = h + 1
    h.add_(1)
    return a.sum()


def _via_data(lib, x):
    h = x * 2
    a = h * h
    h.data.add_(1)
    return a.sum()


def _modified_after_retain(lib, x):
    y = x.exp()
    s = y.sum()
    s.backward(retain_graph=True)
    y.mul_(2)
    return s


SAVED_CASES = {
    "sigmoid_output": _sigmoid_output,
    "leaf_modified_no_grad": _leaf_modified_no_grad,
    "plain_modified": _plain_modified,
    "input_rewritten_by_add": _input_rewritten_by_add,
    "exp_then_exp_": _exp_then_exp_,
    "twice_modified": _twice_modified,
    "detach_modified": _detach_modified,
    "consumer_saved_nothing": _consumer_saved_nothing,
    "via_data": _via_data,
    "modified_after_retain": _modified_after_retain,
}


@pytest.mark.parametrize("case", list(SAVED_CASES))
def test_saved_tensor_modified(case, device):
    """The full message: "modified by an inplace operation", the tensor description, the
    "which is output 0 of X" clause only for tensors with a grad_fn, the two versions."""

    def scenario(lib, device):
        x = mk(lib, device, X / 4, requires_grad=True)
        y = SAVED_CASES[case](lib, x)
        return {"error": err(y.backward), "grad": to_numpy(x.grad)}

    assert_parity(scenario, device=device)


def test_saved_tensor_access_after_modification(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        h = x * 2
        a = h * h
        h.add_(1)
        return {"result": err(lambda: y.grad_fn.next_functions[0][0]._saved_result),
                "self": err(lambda: a.grad_fn._saved_self),
                "raw_unpack": err(lambda: a.grad_fn._raw_saved_other.unpack())}

    assert_parity(scenario, device=device)


def test_clamp_mask_error_depends_on_which_gradients_are_wanted(device):
    """``clamp(x, lo, hi)`` with tensor bounds combines two masks in place in its backward, once
    per gradient it computes; a bound that broadcasts the other operands bigger makes some of
    those combinations fail. Which ones run depends on what the backward wants (PyTorch's
    ``grad_input_mask``): the inputs that require grad, narrowed by ``inputs=``."""
    rng = np.random.default_rng(0)
    shapes = {"x": (3,), "lo": (2, 1), "hi": (1,)}
    arrays = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}

    def scenario(lib, device):
        out = {}
        for wanted in (("x",), ("lo",), ("hi",), ("x", "hi"), ("lo", "hi"), ("x", "lo", "hi")):
            for how in ("backward_inputs", "grad", "requires_grad"):
                t = {k: mk(lib, device, a, requires_grad=how != "requires_grad" or k in wanted)
                     for k, a in arrays.items()}
                y = t["x"].clamp(t["lo"], t["hi"]).sum()
                ins = [t[k] for k in wanted]
                runs = {"backward_inputs": lambda y=y, ins=ins: y.backward(inputs=ins),
                        "grad": lambda y=y, ins=ins: lib.autograd.grad(y, ins),
                        "requires_grad": y.backward}
                out[f"{'+'.join(wanted)}/{how}"] = (
                    err(runs[how]), [None if v.grad is None else to_numpy(v.grad)
                                     for v in t.values()])
        return out

    assert_parity(scenario, device=device)
