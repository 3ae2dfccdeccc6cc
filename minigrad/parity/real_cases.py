"""The real-world cases: small programs from public bug reports, written once for both libraries.

Each case reproduces a behaviour that surprised someone in a public bug report or forum thread
(legacy vs full backward hooks, hooks and in-place ReLU, modules used twice, ``retain_grad``,
diamonds in the graph, in-place on leaves, ``detach()`` vs ``.data``, modules created inside
``forward``, torchviz and saved tensors). The PyTorch originals are plain scripts; here each is a
`RealCase` whose ``scenario(lib, device)`` runs the same logic on ``lib`` (``minigrad``
or ``torch``; the torch side on ``device``, minigrad always on NumPy) and returns *everything the
script prints* as plain data: values as NumPy arrays, node names, ``_version``s, hook calls in
order, warnings as ``(category, first line)`` and errors as ``(type, first line)``.

``minigrad parity --case NAME`` runs one on both libraries and prints the two outputs side by
side (`minigrad.parity.cases`), and ``tests/cases/`` turns each into a parity test. Error
and warning texts are normalised so that ``minigrad`` reads ``torch`` (and ``torch.cuda.`` type
names read ``torch.``). Nothing here imports PyTorch at import time.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import graph_trace, to_numpy, torch_lib

__all__ = ["RealCase", "REAL_CASES", "normalise_message", "normalised_dot"]


@dataclass(frozen=True)
class RealCase:
    """One case: ``name`` is the original script's file name without ``.py`` (``NN_topic``),
    ``source`` the bug report, ``summary`` what surprised its author and what to look at, and
    ``scenario(lib, device)`` the program (returns a plain-data trace)."""

    number: int
    name: str
    source: str
    summary: str
    scenario: Callable


# ------------------------------------------------------------------------------ helpers
def _is_torch(lib) -> bool:
    return lib.__name__ == "torch"


def _mover(lib, device):
    """``on(x)``: a tensor or module moved to ``device`` on the torch side, unchanged on
    minigrad (which always runs on NumPy)."""
    return (lambda x: x.to(device)) if _is_torch(lib) else (lambda x: x)


def normalise_message(text) -> str:
    """First line of an error/warning message with ``minigrad`` spelled ``torch`` and
    ``torch.cuda.XTensor`` read as ``torch.XTensor``."""
    line = str(text).splitlines()[0] if str(text) else ""
    return line.replace("minigrad", "torch").replace("torch.cuda.", "torch.")


def _err(e: BaseException) -> tuple:
    return (type(e).__name__, normalise_message(e))


def _caught(fn):
    """``(result, [(warning category, first line), ...])`` of ``fn()``; DeprecationWarnings
    (from NumPy or Python, never from the hooks) are left out."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = fn()
    return res, [(wi.category.__name__, normalise_message(wi.message)) for wi in w
                 if not issubclass(wi.category, DeprecationWarning)]


def _names(nodes) -> list:
    return [None if f is None else type(f).__name__ for f in nodes]


def normalised_dot(dot) -> str:
    """The DOT source of a ``make_dot`` drawing with Python object ids (run-dependent) renamed
    ``N0, N1, ...`` in order of first appearance, each label on one line (as case 26 prints)."""
    ids: dict = {}
    src = re.sub(r"\b\d{6,}\b", lambda m: ids.setdefault(m.group(0), f"N{len(ids)}"), dot.source)
    return src.replace("\n (", "\\n (")


# ------------------------------------------------------------------------------ 01
def case_01(lib, device):
    """Legacy ``register_backward_hook`` sees the last node's grad_input (2 entries for
    ``x + y + z``; ReLU's for a Sequential) and warns at forward time; a full hook sees one
    gradient per module input."""
    nn, on, printed = lib.nn, _mover(lib, device), []
    xyz = np.random.default_rng(1).standard_normal((3, 1, 5)).astype(np.float32)
    inp = np.random.default_rng(2).standard_normal((2, 5)).astype(np.float32)

    def shapes(gs):
        return [tuple(g.shape) if g is not None else None for g in gs]

    class Sum3(nn.Module):
        def forward(self, x, y, z):
            return x + y + z

    def hook(kind):
        def fn(mod, grad_input, grad_output):
            printed.append((f"{kind} hook", len(grad_input), shapes(grad_input),
                            len(grad_output), shapes(grad_output)))
        return fn

    def call(phase, fn):
        res, warned = _caught(fn)
        printed.extend((f"warning during {phase}", *w) for w in warned)
        return res

    x, y, z = (on(lib.tensor(a)).requires_grad_() for a in xyz)
    m = Sum3()
    m.register_backward_hook(hook("legacy"))
    out = call("forward", lambda: m(x, y, z))
    printed.append(("out.grad_fn", type(out.grad_fn).__name__,
                    _names(f for f, _ in out.grad_fn.next_functions)))
    call("backward", lambda: out.sum().backward())
    printed.append(("x/y/z grads are all ones", all(bool((t.grad == 1).all()) for t in (x, y, z))))

    seq = on(nn.Sequential(nn.Linear(5, 3), nn.ReLU()))
    seq.register_backward_hook(hook("legacy"))
    out = call("forward", lambda: seq(on(lib.tensor(inp)).requires_grad_()))
    call("backward", lambda: out.sum().backward())

    m2 = Sum3()
    m2.register_full_backward_hook(hook("full"))
    out = call("forward", lambda: m2(x, y, z))
    call("backward", lambda: out.sum().backward())
    return printed


# ------------------------------------------------------------------------------ 02
def case_02(lib, device):
    """Backward pre-hooks push and full backward hooks pop a module name: they nest when the
    input requires grad; without, each full hook fires right after its pre-hook with
    ``grad_input=(None,)`` and a UserWarning."""
    nn, on, events, gi, printed = lib.nn, _mover(lib, device), [], [], []
    X = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)

    def pre(mod, grad_output):
        events.append("Push " + mod._name)

    def post(mod, grad_input, grad_output):
        events.append("Pop  " + mod._name)
        if mod._name == "outer":
            gi.append(["None" if g is None else tuple(g.shape) for g in grad_input])

    inner = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
    outer = on(nn.Sequential(inner))
    for name, mod in [("outer", outer), ("inner", inner), ("lin1", inner[0]),
                      ("relu", inner[1]), ("lin2", inner[2])]:
        mod._name = name
        mod.register_full_backward_pre_hook(pre)
        mod.register_full_backward_hook(post)
    for req in (True, False):
        events.clear()
        gi.clear()
        x = on(lib.tensor(X)).requires_grad_(req)
        _, warned = _caught(lambda: outer(x).sum().backward())  # noqa: B023 - called at once
        printed.append((f"input.requires_grad={req}", " | ".join(events), gi[0], len(warned),
                        sorted(set(warned))))
    return printed


# ------------------------------------------------------------------------------ 04
def case_04(lib, device):
    """Full backward hooks wrap a module's inputs/outputs in ``BackwardHookFunction`` views, so
    an in-place ReLU on them raises the custom-Function view error; out-of-place works; a tensor
    hook installed by a forward hook is the workaround."""
    nn, F, on, printed = lib.nn, lib.nn.functional, _mover(lib, device), []
    X = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)

    def hook(m, gi, go):
        printed.append(("hook fired", type(m).__name__, [tuple(g.shape) for g in go]))

    mod = on(nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(inplace=True)))
    mod[3].register_full_backward_hook(hook)
    x = on(lib.tensor(X)).requires_grad_()
    try:
        mod(x)
        printed.append("A forward OK")
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("A forward raised", *_err(e)))

    block = on(nn.Sequential(nn.Linear(4, 4)))
    block.register_full_backward_hook(hook)
    out = block(x)
    printed.append(("B out.grad_fn", type(out.grad_fn).__name__, out._is_view()))
    try:
        F.relu(out, inplace=True)
        printed.append("B in-place OK")
    except Exception as e:  # noqa: BLE001
        printed.append(("B in-place raised", *_err(e)))

    F.relu(block(x)).sum().backward()  # C: out of place, the hook fires

    mod2 = on(nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True)))

    def fw_hook(m, i, o):
        o.register_hook(lambda g: printed.append(("D tensor hook grad shape", tuple(g.shape))))

    mod2[1].register_forward_hook(fw_hook)
    mod2(x).sum().backward()
    return printed


# ------------------------------------------------------------------------------ 06
def case_06(lib, device):
    """On ``ReLU(inplace=True)`` the forward hook's input already holds the result (the same
    object as the output, version 1); the pre-hook saw the original values."""
    on, printed = _mover(lib, device), []

    def pre_hook(m, inp):
        printed.append(("pre-hook input", to_numpy(inp[0]), inp[0]._version))

    def fwd_hook(m, inp, out):
        printed.append(("fwd-hook input", to_numpy(inp[0]), inp[0]._version))
        printed.append(("fwd-hook output", to_numpy(out), out is inp[0]))

    for inplace in (True, False):
        x = on(lib.tensor([1.23, -4.56]))
        m = lib.nn.ReLU(inplace=inplace)
        m.register_forward_pre_hook(pre_hook)
        m.register_forward_hook(fwd_hook)
        printed.append(f"ReLU(inplace={inplace})")
        m(x)
        printed.append(("caller's x after call", to_numpy(x), x._version))
    return printed


# ------------------------------------------------------------------------------ 07
def _seeded_linear(lib, on, seed):
    """``nn.Linear(3, 2)`` with the weights of PyTorch's ``manual_seed(seed)`` initialisation."""
    torch = torch_lib()
    torch.manual_seed(seed)
    ref = torch.nn.Linear(3, 2)
    lin = lib.nn.Linear(3, 2)
    lin.load_state_dict(ref.state_dict())
    return on(lin)


def case_07(lib, device):
    """A forward hook's return value replaces the output (and its graph); an in-place edit with
    a None return is visible to the caller; hooks chain; a pre-hook may replace the input."""
    on, printed = _mover(lib, device), []
    X = np.random.default_rng(0).standard_normal((1, 3)).astype(np.float32)
    lin = _seeded_linear(lib, on, 0)
    x = on(lib.tensor(X)).requires_grad_()
    base = lin(x)
    printed.append(("plain output", to_numpy(base), type(base.grad_fn).__name__))

    h = lin.register_forward_hook(lambda m, i, o: o * 2)
    out = lin(x)
    printed.append(("hook returns o*2", to_numpy(out), type(out.grad_fn).__name__))
    out.sum().backward()
    printed.append(("x.grad", to_numpy(x.grad)))
    h.remove()

    def inplace_hook(m, i, o):
        o.mul_(2)
        return None

    x.grad = None
    h = lin.register_forward_hook(inplace_hook)
    out = lin(x)
    printed.append(("hook does o.mul_(2)", to_numpy(out), type(out.grad_fn).__name__,
                    out._version))
    out.sum().backward()
    printed.append(("x.grad", to_numpy(x.grad)))
    h.remove()

    lin.register_forward_hook(lambda m, i, o: o + 100)
    lin.register_forward_hook(lambda m, i, o: printed.append(("2nd hook sees", to_numpy(o))))
    out = lin(x)
    printed.append(("two hooks, final", to_numpy(out), type(out.grad_fn).__name__))

    lin2 = _seeded_linear(lib, on, 1)
    zeros = on(lib.zeros(1, 3))
    lin2.register_forward_pre_hook(lambda m, i: zeros)
    printed.append(("pre-hook zeros input", lib.allclose(lin2(x), lin2.bias.unsqueeze(0))))
    return printed


# ------------------------------------------------------------------------------ 09
def _shared_net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.shared = nn.Linear(2, 2)
            self.act = nn.Tanh()

        def forward(self, x):
            return self.shared(self.act(self.shared(x)))

    return Net()


def case_09(lib, device):
    """A module called twice fires its forward hook twice (call order) and its backward
    pre/full hooks twice in reverse order with per-call gradients; the shared weight's gradient
    is the sum; ``parameters()`` lists it once."""
    from .hooks import paired_models

    mm, tm = paired_models(_shared_net, device)
    net = tm if _is_torch(lib) else mm
    calls = []

    def fwd(m, inp, out):
        calls.append(("fwd", to_numpy(inp[0])))
        m.saved_input = inp[0].detach()

    net.shared.register_forward_hook(fwd)
    net.shared.register_full_backward_pre_hook(
        lambda m, gout: calls.append(("bwd_pre gout", to_numpy(gout[0]))))
    net.shared.register_full_backward_hook(
        lambda m, gin, gout: calls.append(("bwd gin", to_numpy(gin[0]))))
    x = _mover(lib, device)(lib.tensor([[1.0, -1.0]])).requires_grad_()
    out = net(x)
    saved = to_numpy(net.shared.saved_input)
    out.sum().backward()
    return {"saved_input": saved, "calls": calls, "x.grad": to_numpy(x.grad),
            "shared.weight.grad": to_numpy(net.shared.weight.grad),
            "parameters() count": len(list(net.parameters()))}


# ------------------------------------------------------------------------------ 11
def case_11(lib, device):
    """``retain_grad()`` on a non-leaf fills its ``.grad`` (accumulating across backward calls);
    on a leaf it is a no-op; on a tensor without grad it raises; reading ``.grad`` of a
    non-retaining non-leaf warns."""
    on, printed = _mover(lib, device), []
    x = on(lib.tensor([1.0, 2.0])).requires_grad_()
    y = x * 3
    z = y * y
    c = on(lib.tensor([5.0]))
    printed.append(("is_leaf", x.is_leaf, y.is_leaf, z.is_leaf, c.is_leaf))
    printed.append(("retains_grad before", x.retains_grad, y.retains_grad, z.retains_grad))
    x.retain_grad()
    y.retain_grad()
    printed.append(("retains_grad after", x.retains_grad, y.retains_grad, z.retains_grad))
    try:
        c.retain_grad()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("c.retain_grad()", *_err(e)))
    z.sum().backward()
    printed.append(("x.grad", to_numpy(x.grad), "y.grad", to_numpy(y.grad)))
    zg, warned = _caught(lambda: z.grad)
    printed.append(("z.grad", zg, len(warned)))
    printed.extend((cat, msg.split(" (Triggered internally")[0]) for cat, msg in warned)
    y2 = x * 3
    y2.retain_grad()
    (y2 * y2).sum().backward(retain_graph=True)
    first = y2.grad.clone()
    (y2 * y2).sum().backward()
    printed.append(("retained grad after 1st / 2nd backward", to_numpy(first), to_numpy(y2.grad)))
    return printed


# ------------------------------------------------------------------------------ 13
def case_13(lib, device):
    """``register_hook`` receives the gradient before accumulation;
    ``register_post_accumulate_grad_hook`` receives the parameter with ``.grad`` accumulated;
    returning a tensor from it is an error (after the accumulation); registering it on a
    non-leaf or a no-grad tensor raises."""
    on, printed = _mover(lib, device), []
    lin = on(lib.nn.Linear(2, 1, bias=False))
    with lib.no_grad():
        lin.weight.copy_(on(lib.tensor([[1.0, -1.0]])))
    w = lin.weight
    w.register_hook(lambda g: printed.append(("register_hook receives", to_numpy(g))))
    h = w.register_post_accumulate_grad_hook(lambda p: printed.append(
        ("post-accumulate hook", p is w, to_numpy(p.grad), to_numpy(p))))
    x = on(lib.tensor([[3.0, 4.0]]))
    for _ in range(2):
        lin(x).sum().backward()
        printed.append(("w.grad after", to_numpy(w.grad)))
    h.remove()
    w.register_post_accumulate_grad_hook(lambda p: p * 0.5)
    try:
        lin(x).sum().backward()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("hook returning a tensor", *_err(e)))
    printed.append(("w.grad after the failed backward", to_numpy(w.grad)))
    y = lin(x)
    for name, tensor in (("non-leaf", y), ("no-grad", x)):
        try:
            tensor.register_post_accumulate_grad_hook(lambda t: None)
        except Exception as e:  # noqa: BLE001
            printed.append((name, *_err(e)))
    return printed


# ------------------------------------------------------------------------------ 16
def case_16(lib, device):
    """A non-leaf used on several paths (``b`` in ``c = b * b`` and ``d = c + b``) gets one
    summed gradient: its tensor hook and its node's pre-hook fire once, with 13.5, and
    ``a.grad`` is the analytic 54 (the early micrograd pushed ``b``'s gradient once per use)."""
    printed = []
    a = _mover(lib, device)(lib.tensor(2.0)).requires_grad_()
    b = a * a            # non-leaf used on several paths below
    c = b * b            # path 1 (b used twice in one op)
    d = c + b            # path 2
    e = d * 1.5
    calls = []
    b.grad_fn.register_prehook(lambda gout: calls.append(("b.grad_fn prehook", gout[0].item())))
    b.register_hook(lambda g: calls.append(("b tensor hook", g.item())))
    c.grad_fn.register_prehook(lambda gout: calls.append(("c.grad_fn prehook", gout[0].item())))
    printed.append(("graph", type(e.grad_fn).__name__,
                    _names(f for f, _ in e.grad_fn.next_functions if f is not None)))
    printed.append(("d.grad_fn.next_functions", _names(f for f, _ in d.grad_fn.next_functions)))
    printed.append(("c.grad_fn.next_functions (b twice)",
                    [(type(f).__name__, f is b.grad_fn) for f, _ in c.grad_fn.next_functions]))
    printed.append(("canonical graph of e", graph_trace(e)))
    e.backward()
    printed.append(("calls", calls))
    printed.append(("a.grad", a.grad.item(), "analytic", 1.5 * (2 * 4 + 1) * 2 * 2))
    return printed


# ------------------------------------------------------------------------------ 18
def case_18(lib, device):
    """A manual SGD step on a parameter: ``p.add_(...)`` and ``p -= ...`` raise the leaf
    in-place error (version unchanged); ``p.data.add_`` works without bumping ``_version``;
    under ``no_grad`` it works and bumps it; a tensor without grad is modified freely."""
    on, printed = _mover(lib, device), []
    lin = on(lib.nn.Linear(2, 1))
    p = lin.weight
    p0 = p.detach().clone()
    lin(on(lib.ones(1, 2))).sum().backward()
    lr = 0.1
    printed.append(("p.is_leaf", p.is_leaf, "p.requires_grad", p.requires_grad,
                    "p._version", p._version))
    try:
        p.add_(p.grad, alpha=-lr)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("p.add_(...)", *_err(e)))
    try:
        p -= lr * p.grad
    except Exception as e:  # noqa: BLE001
        printed.append(("p -= lr * p.grad", *_err(e)))
    printed.append(("p._version after failed attempts", p._version))
    before = p.detach().clone()
    p.data.add_(p.grad, alpha=-lr)
    printed.append(("p.data.add_(...)", "changed", not lib.equal(before, p.detach()),
                    "p._version", p._version, "p.is_leaf", p.is_leaf))
    with lib.no_grad():
        p.add_(p.grad, alpha=-lr)
    printed.append(("no_grad: p.add_(...)", "p._version", p._version, "p.grad_fn", p.grad_fn,
                    "p.requires_grad", p.requires_grad))
    q = on(lib.zeros(2))
    q.add_(1)
    printed.append(("plain tensor add_", "q._version", q._version))
    printed.append(("p moved by the two steps", to_numpy(p.detach() - p0)))
    return printed


# ------------------------------------------------------------------------------ 20
def case_20(lib, device):
    """``detach()`` shares the version counter, ``.data`` does not: zeroing sigmoid's saved
    output through ``detach()`` makes backward raise the version error; through ``.data`` it
    goes unnoticed and the gradient is silently wrong (zeros)."""
    on, printed = _mover(lib, device), []
    for route in ("detach()", ".data"):
        a = on(lib.tensor([1.0, 2.0, 3.0])).requires_grad_()
        out = a.sigmoid()                      # SigmoidBackward0 saves its OUTPUT
        c = out.detach() if route == "detach()" else out.data
        printed.append((f"via {route}", "c.requires_grad", c.requires_grad, "shares storage",
                        c.data_ptr() == out.data_ptr(), "versions before",
                        out._version, c._version))
        c.zero_()
        printed.append(("out after c.zero_()", out.tolist(), "versions after", out._version,
                        c._version))
        try:
            out.sum().backward()
            printed.append(("backward -> no error; a.grad", a.grad.tolist()))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            printed.append(("backward", *_err(e)))
    a2 = on(lib.tensor([1.0, 2.0, 3.0])).requires_grad_()
    a2.sigmoid().sum().backward()
    printed.append(("correct a.grad would be", [round(v, 4) for v in a2.grad.tolist()]))
    return printed


# ------------------------------------------------------------------------------ 23
D_IN, HIDDEN, D_OUT = 4, 5, 2


def case_23(lib, device):
    """Only modules assigned as attributes are registered: layers built and applied inside
    ``forward`` give 0 parameters (SGD: 'optimizer got an empty parameter list') and different
    outputs per call; assigned to ``self`` in ``forward`` they appear after the first call and
    are replaced every call; built in ``__init__`` they are listed and trained."""
    nn, on, printed = lib.nn, _mover(lib, device), []

    class InForward(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            block = on(nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU()))  # created every call
            return on(nn.Linear(HIDDEN, D_OUT))(block(x))

    class InInit(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU())
            self.head = nn.Linear(HIDDEN, D_OUT)

        def forward(self, x):
            return self.head(self.block(x))

    class AssignedInForward(nn.Module):
        def forward(self, x):
            self.block = on(nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU()))  # re-created
            return self.block(x)

    x = on(lib.tensor(np.random.default_rng(0).standard_normal((3, D_IN)).astype(np.float32)))
    for cls in (InForward, InInit):
        m = cls()
        printed.append((cls.__name__, "len(parameters())", len(list(m.parameters())),
                        "children", [n for n, _ in m.named_children()],
                        "state_dict keys", list(m.state_dict())))
    m = InForward()
    try:
        lib.optim.SGD(m.parameters(), lr=0.1)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("SGD(InForward().parameters())", *_err(e)))
    out1, out2 = m(x), m(x)
    printed.append(("same input, two calls give different outputs", not lib.allclose(out1, out2)))
    out1.sum().backward()
    printed.append(("out1.grad_fn", type(out1.grad_fn).__name__, "leaves reached",
                    sorted({type(f).__name__ for f, _ in out1.grad_fn.next_functions
                            if f is not None})))
    printed.append(("canonical graph of out1", graph_trace(out1)))

    m = AssignedInForward()
    printed.append(("AssignedInForward: params before 1st call", len(list(m.parameters()))))
    m(x)
    w_first = m.block[0].weight
    printed.append(("AssignedInForward: params after 1st call", len(list(m.parameters())),
                    "keys", list(m.state_dict())))
    m(x)
    printed.append(("AssignedInForward: 2nd call replaced the weight object",
                    m.block[0].weight is not w_first))

    m = on(InInit())
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    before = m.head.weight.detach().clone()
    m(x).sum().backward()
    opt.step()
    printed.append(("InInit: head.weight changed by SGD step",
                    not lib.equal(before, m.head.weight.detach())))
    printed.append(("InInit: head.weight moved by -lr * grad", lib.allclose(
        m.head.weight.detach(), before - 0.1 * m.head.weight.grad)))
    return printed


# ------------------------------------------------------------------------------ 26
def case_26(lib, device, draw=None):
    """``make_dot(show_saved=True)`` of ``y = a * a``: ``_saved_self`` and ``_saved_other`` are
    the leaf ``a`` itself (same object), so torchviz, which names nodes by ``id()``, drew saved
    tensors and leaf as one node declared three times; ``exp()``'s ``_saved_result`` is a new
    object sharing the output's storage (a distinct node).

    ``draw`` is the drawing function (default `minigrad.viz.make_dot`, which draws both
    libraries' graphs; the tests also pass ``torchviz.make_dot``); the traces hold
    `normalised_dot` of each drawing."""
    from ..viz import make_dot

    draw, on, printed = draw or make_dot, _mover(lib, device), []
    rng = np.random.default_rng(0)
    a = on(lib.tensor(rng.standard_normal(5).astype(np.float32))).requires_grad_()
    y = a * a
    fn = y.grad_fn
    printed.append(("y.grad_fn", type(fn).__name__, "_saved_self is a", fn._saved_self is a,
                    "_saved_other is a", fn._saved_other is a, "_saved_self equal a",
                    lib.equal(fn._saved_self, a)))
    printed.append(("make_dot(y, show_saved=True)", normalised_dot(draw(y, show_saved=True))))
    b = on(lib.tensor(rng.standard_normal(5).astype(np.float32))).requires_grad_()
    z = b.exp()                              # ExpBackward0 saves its OUTPUT (result)
    fn = z.grad_fn
    printed.append(("z.grad_fn", type(fn).__name__, "_saved_result is z", fn._saved_result is z,
                    "equal", lib.equal(fn._saved_result, z), "shares storage",
                    fn._saved_result.data_ptr() == z.data_ptr()))
    printed.append(("make_dot(z = b.exp(), show_saved=True)",
                    normalised_dot(draw(z, show_saved=True))))
    return printed


def _summary(fn) -> str:
    """The first paragraph of a scenario's docstring, on one line."""
    return " ".join(fn.__doc__.split("\n\n")[0].split())


_GH = "https://github.com/"
REAL_CASES = {c.name: c for c in [
    RealCase(1, "01_legacy_backward_hook_last_op", _GH + "pytorch/pytorch/issues/598",
             _summary(case_01), case_01),
    RealCase(2, "02_full_backward_hook_no_input_grad_order",
             _GH + "pytorch/pytorch/issues/100528", _summary(case_02), case_02),
    RealCase(4, "04_full_backward_hook_inplace_relu", _GH + "pytorch/pytorch/issues/61519",
             _summary(case_04), case_04),
    RealCase(6, "06_forward_hook_inplace_relu_input", _GH + "pytorch/pytorch/issues/95617",
             _summary(case_06), case_06),
    RealCase(7, "07_forward_hook_modify_output",
             "https://discuss.pytorch.org/t/why-not-modify-forward-hook-output/46584",
             _summary(case_07), case_07),
    RealCase(9, "09_hooks_on_shared_module", _GH + "jmschrei/tangermeme/pull/54",
             _summary(case_09), case_09),
    RealCase(11, "11_retain_grad_non_leaf", _GH + "pytorch/tutorials/issues/3652",
             _summary(case_11), case_11),
    RealCase(13, "13_post_accumulate_grad_hook_argument",
             _GH + "pytorch/pytorch/issues/187268", _summary(case_13), case_13),
    RealCase(16, "16_reused_non_leaf_diamond", _GH + "karpathy/micrograd/issues/2",
             _summary(case_16), case_16),
    RealCase(18, "18_inplace_on_leaf_requires_grad", _GH + "pytorch/examples/pull/779",
             _summary(case_18), case_18),
    RealCase(20, "20_detach_vs_data_inplace", _GH + "pytorch/pytorch/issues/6990",
             _summary(case_20), case_20),
    RealCase(23, "23_modules_created_in_forward", _GH + "pytorch/pytorch/issues/1291",
             _summary(case_23), case_23),
    RealCase(26, "26_torchviz_saved_tensors", _GH + "szagoruyko/pytorchviz/issues/69",
             _summary(case_26), case_26),
]}
"""Every real-world case by name (the original script's file name without ``.py``)."""
