"""Parity: tensor hooks (``register_hook``, ``retain_grad``, post-accumulate-grad hooks) and node
hooks (``register_prehook``/``register_hook``) — what they receive, what their return values
replace, and the errors for bad return values (facts §5.7) — minigrad vs PyTorch."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, capture_error, to_numpy

torch = pytest.importorskip("torch")

A = np.array([1.0, 2.0], np.float32)
M23 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4


def mk(lib, device, arr, requires_grad=False):
    t = lib.tensor(arr)
    if lib is torch:
        t = t.to(device)
    return t.requires_grad_(requires_grad)


def err(fn):
    e = capture_error(fn)
    return None if e is None else (e[0], e[1].splitlines()[0].replace("minigrad", "torch")
                                   .replace("torch.cuda.", "torch."))  # minigrad is CPU-only


def arrays(ts):
    return [None if t is None else to_numpy(t) for t in ts]


# ------------------------------------------------------------------ tensor hooks
TENSOR_BAD = {
    "int": lambda lib: (lambda g: 3),
    "dtype": lambda lib: (lambda g: g.double()),
    "shape": lambda lib: (lambda g: g[:1]),
    "list": lambda lib: (lambda g: [1.0, 2.0]),
}


@pytest.mark.parametrize("case", list(TENSOR_BAD))
@pytest.mark.parametrize("where", ["leaf", "nonleaf"])
def test_tensor_hook_bad_return(device, case, where):
    def scenario(lib, device):
        x = mk(lib, device, A, True)
        y = x * 2
        (x if where == "leaf" else y).register_hook(TENSOR_BAD[case](lib))
        return err(lambda: (y * y).sum().backward()), x.grad is None

    mg, _ = assert_parity(scenario, device=device)
    assert mg[0] is not None


def test_tensor_hook_gets_none_for_unused_output(device):
    """Hooks of a multi-output node's outputs run even for an output that got no gradient
    (they receive None); the node's post hook sees None there too."""

    def scenario(lib, device):
        log = []
        x = mk(lib, device, M23, True)
        a, b = x.unbind(0)
        b.register_hook(lambda g: log.append(("b", g)))
        a.register_hook(lambda g: log.append(("a", to_numpy(g))))
        a.grad_fn.register_hook(lambda gi, go: log.append(("post", arrays(gi), arrays(go))))
        a.sum().backward()
        return log, to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_undefined_gradient_reaches_leaf_hooks(device):
    """A node post hook returning None for a slot: the leaf's tensor hook gets None, its
    post-accumulate hook still runs and ``.grad`` stays None."""

    def scenario(lib, device):
        log = []
        x = mk(lib, device, A, True)
        x.register_hook(lambda g: log.append(("x hook", g)))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post acc", t.grad)))
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go: (None, None))
        y.register_hook(lambda g: log.append(("y hook", to_numpy(g))))
        y.exp().sum().backward()
        return log, x.grad

    assert_parity(scenario, device=device)


def test_hook_replacement_and_retain_grad(device):
    """What ``.grad`` receives: the gradient after every tensor hook (leaf and retained
    non-leaf), whatever the registration order of ``retain_grad``; the replacement flows on."""

    def scenario(lib, device):
        out = {}
        x = mk(lib, device, A, True)
        y = x * 3
        y.register_hook(lambda g: g * 10)
        y.retain_grad()
        y.register_hook(lambda g: g + 1)
        x.register_hook(lambda g: g / 2)
        (y * y).sum().backward()
        out["y.grad"], out["x.grad"] = to_numpy(y.grad), to_numpy(x.grad)
        # a leaf used twice: its hook is called once with the summed gradient
        seen = []
        w = mk(lib, device, A, True)
        w.register_hook(lambda g: seen.append(to_numpy(g)))
        (w * 2 + w * 3).sum().backward()
        out["twice"] = seen
        # the leaf hook's return is what .grad accumulates
        with w.register_hook(lambda g: g * 0 + 7):
            (w * 2).sum().backward()
        (w * 2).sum().backward()  # hook removed by the with block
        out["w.grad"] = to_numpy(w.grad)
        return out

    assert_parity(scenario, device=device)


def test_handle_ids_are_one_global_counter():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        lin = lib.nn.Linear(2, 2)
        hs = [x.register_hook(lambda g: g), lin.register_forward_hook(lambda *a: None),
              lin.register_full_backward_hook(lambda *a: None),
              x.register_post_accumulate_grad_hook(lambda t: None),
              (x * 2).grad_fn.register_prehook(lambda go: None)]
        return [h.id - hs[0].id for h in hs], list(x._backward_hooks) == [hs[0].id]

    assert_parity(scenario)


# ------------------------------------------------------------------ post-accumulate-grad hooks
def test_post_accumulate_hook_returns(device):
    def scenario(lib, device):
        out = {}
        x = mk(lib, device, A, True)
        for name, hook in [("same", lambda t: t), ("none", lambda t: None),
                           ("new", lambda t: t * 1), ("int", lambda t: 5)]:
            h = x.register_post_accumulate_grad_hook(hook)
            out[name] = err(lambda: (x * 2).sum().backward())
            h.remove()
        out["grad"] = to_numpy(x.grad)  # every backward accumulated before its hook ran
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ node hooks
NODE_BAD = {
    "pre_tuple": ("pre", lambda go: go[0]),
    "pre_len": ("pre", lambda go: (go[0], go[0])),
    "pre_shape": ("pre", lambda go: (go[0][:1],)),
    "pre_dtype": ("pre", lambda go: (go[0].double(),)),
    "pre_none": ("pre", lambda go: (None,)),
    "post_tuple": ("post", lambda gi, go: gi[0]),
    "post_len": ("post", lambda gi, go: (gi[0],)),
    "post_fill_none": ("post", lambda gi, go: (gi[0], gi[0])),
    "post_shape": ("post", lambda gi, go: (gi[0][:1], None)),
    "post_int": ("post", lambda gi, go: (3, None)),
    "post_none": ("post", lambda gi, go: (None, None)),
}


@pytest.mark.parametrize("case", list(NODE_BAD))
def test_node_hook_returns(device, case):
    def scenario(lib, device):
        kind, hook = NODE_BAD[case]
        x = mk(lib, device, A, True)
        y = x * 2  # MulBackward0 with slots (x, None)
        if kind == "pre":
            y.grad_fn.register_prehook(hook)
        else:
            y.grad_fn.register_hook(hook)
        return err(lambda: y.sum().backward()), x.grad if x.grad is None else to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_node_hooks_on_accumulate_grad_and_custom_function(device):
    """AccumulateGrad's hooks (post: empty grad_inputs); a custom Function's post hook sees the
    gradient its backward returned for an input without grad (zeros) and None for an output
    that got no gradient."""

    def scenario(lib, device):
        log = []

        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 1, b * 1

            @staticmethod
            def backward(ctx, ga, gb):
                return ga * 2, gb * 3

        x = mk(lib, device, A, True)
        b = mk(lib, device, A)
        o1, o2 = Pair.apply(x, b)
        acc = o1.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("acc pre", arrays(go))))
        acc.register_hook(lambda gi, go: log.append(("acc post", gi, arrays(go))))
        o1.grad_fn.register_hook(lambda gi, go: log.append(("fn post", arrays(gi), arrays(go))))
        o1.sum().backward()
        return log, to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_integer_outputs_have_no_gradient_slot(device):
    """``max(dim)`` returns (values, indices): the node has one gradient slot, not two."""

    def scenario(lib, device):
        log = []
        x = mk(lib, device, M23, True)
        values, indices = x.max(1)
        values.grad_fn.register_prehook(lambda go: log.append(len(go)))
        values.grad_fn.register_hook(lambda gi, go: log.append((arrays(gi), arrays(go))))
        values.sum().backward()
        return log, indices.requires_grad, to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_register_hook_on_stale_special_view_raises_once(device):
    """``register_hook`` reads ``grad_fn`` only when a tensor gets its first hook: on a
    no_grad multi-output view whose base was then modified, the first registration raises
    (reading grad_fn does) and a second one succeeds."""

    def scenario(lib, device):
        x = mk(lib, device, np.arange(4.0), True)
        with lib.no_grad():
            parts = x.unbind(-1)
            parts[1].sub_(2.0)
        first = err(lambda: parts[2].register_hook(lambda g: g))
        second = err(lambda: parts[2].register_hook(lambda g: g))
        return first, second, err(lambda: parts[2].grad_fn)

    mg, _ = assert_parity(scenario, device=device)
    assert mg[0] is not None and mg[1] is None and mg[2] is not None
