"""Parity of the recurrent layers: ``RNN`` (tanh, relu), ``LSTM``, ``GRU`` and ``RNNCell``,
``LSTMCell``, ``GRUCell``.

Each scenario builds the module in both libraries, copies PyTorch's (seeded) weights into the
minigrad twin with ``load_state_dict``, runs it on the same input (and initial state), and
compares the output, the final states, the backward graphs of the output and of each final
state (node names, edges, input_nr), and the gradients of the input, of the initial states and
of every parameter, in float64 and float32. Also: parameter names and shapes, state_dict keys,
``all_weights``, reprs, the dropout warning, errors, and three SGD steps of a 2-layer LSTM.

These scenarios run with oneDNN disabled in both libraries (``lib.backends.mkldnn.flags``),
where every module records the composition of ordinary ops; the default path of a float32 or
bfloat16 LSTM (one fused ``MkldnnRnnLayerBackward0`` per layer and direction) is tested in
``test_rnn_mkldnn.py``. On CUDA PyTorch records cuDNN's nodes, so graphs are compared on the
CPU only.
"""

import contextlib
import warnings

import numpy as np
import pytest

from minigrad.parity import compare, graph_nodes, graph_trace, run_both, to_numpy

from .test_functional import leaf, saved_names
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

I, H, P = 3, 4, 2  # input_size, hidden_size, proj_size
TOL = {np.float64: {"rtol": 1e-10, "atol": 1e-12}, np.float32: {"rtol": 1e-5, "atol": 1e-6}}


def _is_torch(lib):
    return lib.__name__ == "torch"


def _build(lib, kind, kw, dtype, device="cpu"):
    """``lib.nn.<kind>(I, H, **kw)`` holding the weights of a seeded torch build."""
    cls = "RNN" if kind.startswith("RNN_") else kind
    kw = dict(kw, nonlinearity=kind[4:]) if kind.startswith("RNN_") else dict(kw)
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls)(I, H, **kw).to(torch.float64)
    state = {k: to_numpy(v).astype(dtype) for k, v in ref.state_dict().items()}
    m = getattr(lib.nn, cls)(I, H, **kw)
    m = m.double() if dtype == np.float64 else m
    if _is_torch(lib):
        m = m.to(device)
        state = {k: torch.tensor(v, device=device) for k, v in state.items()}
    m.load_state_dict(state)
    return m


@contextlib.contextmanager
def _mkldnn_off(lib):
    """The CPU path without oneDNN, in both libraries (``lib.backends.mkldnn.flags``; PyTorch's
    warns about TF32 on Intel GPUs): LSTMs record the composition of ordinary ops."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.backends.mkldnn.flags(enabled=False):
            yield


def _saved(root) -> list:
    """Per node of the graph: its saved attributes (tensors as shapes, numbers as they are)."""
    out = []
    for node in graph_nodes([root.grad_fn]):
        vals = []
        for a in saved_names(node):
            v = getattr(node, a)
            if a == "_saved_result3":  # oneDNN's workspace: its size is the kernel's own
                vals.append(("workspace", str(v.dtype).split(".")[-1], v.dim()))
            else:
                vals.append(tuple(v.shape) if hasattr(v, "shape") else v)
        out.append(vals)
    return out


def _state_shapes(kind, kw, batch):
    d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    real = kw.get("proj_size", 0) or H
    h = (d, batch, real) if batch is not None else (d, real)
    if kind == "LSTM":
        return [h, (d, batch, H) if batch is not None else (d, H)]
    return [h]


def _run(
    lib, kind, kw, shape, with_state, dtype, device="cpu", train=False, graph=True, mkldnn=False
):
    """Forward + backward of a full-sequence module; a trace of everything. ``kw`` may hold
    ``noncontig`` (the input is a transposed view) and ``train`` (training mode); ``mkldnn``
    keeps oneDNN's switch as it is (on by default) instead of turning it off."""
    rng = np.random.default_rng(3)
    kw = dict(kw)
    noncontig, train = kw.pop("noncontig", False), kw.pop("train", train)
    m = _build(lib, kind, kw, dtype, device)
    m.train(train)
    x = leaf(lib, rng.standard_normal(shape[::-1] if noncontig else shape).astype(dtype), device)
    x_in = x.permute(*range(len(shape) - 1, -1, -1)) if noncontig else x
    batch = None if len(shape) == 2 else shape[0 if kw.get("batch_first") else 1]
    states = (
        [
            leaf(lib, rng.standard_normal(s).astype(dtype), device)
            for s in _state_shapes(kind, kw, batch)
        ]
        if with_state
        else None
    )
    with contextlib.nullcontext() if mkldnn else _mkldnn_off(lib):
        if states is None:
            out, hidden = m(x_in)
        else:
            out, hidden = m(x_in, tuple(states) if kind == "LSTM" else states[0])
    finals = list(hidden) if kind == "LSTM" else [hidden]
    trace = {"out": to_numpy(out), "finals": [to_numpy(f) for f in finals]}
    if graph and device == "cpu":  # (on CUDA PyTorch runs cuDNN's kernels)
        trace["graph"] = [graph_trace(t) for t in [out] + finals]
        trace["saved"] = [_saved(t) for t in [out] + finals]
        trace["versions"] = [out._version] + [f._version for f in finals]
    loss = (
        out
        * leaf(
            lib, rng.standard_normal(tuple(out.shape)).astype(dtype), device, requires_grad=False
        )
    ).sum()
    for f in finals:
        loss = (
            loss
            + (
                f
                * leaf(
                    lib,
                    rng.standard_normal(tuple(f.shape)).astype(dtype),
                    device,
                    requires_grad=False,
                )
            ).sum()
        )
    loss.backward()
    trace["x.grad"] = to_numpy(x.grad)
    trace["state.grad"] = [to_numpy(s.grad) for s in states] if states else None
    trace["grads"] = {n: to_numpy(p.grad) for n, p in m.named_parameters()}
    return trace


LAYER_CASES = {
    "plain": ({}, (5, 2, I), False),
    "state": ({}, (5, 2, I), True),
    "len1": ({}, (1, 2, I), True),
    "two_layers": ({"num_layers": 2}, (4, 3, I), True),
    "bidirectional": ({"bidirectional": True}, (4, 2, I), True),
    "two_layers_bi": ({"num_layers": 2, "bidirectional": True}, (3, 2, I), False),
    "batch_first": ({"batch_first": True}, (2, 4, I), True),
    "batch_first_2l_bi": (
        {"batch_first": True, "num_layers": 2, "bidirectional": True},
        (3, 4, I),
        False,
    ),
    "no_bias": ({"bias": False}, (4, 2, I), True),
    "no_bias_bf": ({"bias": False, "batch_first": True, "bidirectional": True}, (2, 3, I), False),
    "unbatched": ({}, (5, I), False),
    "unbatched_state": ({"num_layers": 2}, (5, I), True),
    "unbatched_bf_bi": ({"batch_first": True, "bidirectional": True}, (4, I), True),
    "dropout_eval": ({"num_layers": 2, "dropout": 0.5}, (3, 2, I), True),
    "batch1": ({"num_layers": 2}, (3, 1, I), True),
    "empty_batch": ({"num_layers": 2, "bidirectional": True}, (3, 0, I), True),
    "non_contiguous": ({"num_layers": 2, "noncontig": True}, (4, 3, I), True),
    "non_contiguous_bf": ({"batch_first": True, "noncontig": True}, (3, 4, I), False),
    "dropout1_train": ({"num_layers": 3, "dropout": 1.0, "train": True}, (3, 2, I), True),
}
PROJ_CASES = {
    "proj": ({"proj_size": P}, (4, 2, I), True),
    "proj_plain": ({"proj_size": P}, (4, 2, I), False),
    "proj_2l_bi": ({"proj_size": P, "num_layers": 2, "bidirectional": True}, (3, 2, I), True),
    "proj_no_bias_bf": ({"proj_size": P, "bias": False, "batch_first": True}, (2, 3, I), True),
    "proj_unbatched": ({"proj_size": P, "num_layers": 2}, (3, I), True),
}
KINDS = ["RNN_tanh", "RNN_relu", "LSTM", "GRU"]
ALL = [(k, c) for k in KINDS for c in LAYER_CASES] + [("LSTM", c) for c in PROJ_CASES]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("kind,case", ALL, ids=[f"{k}-{c}" for k, c in ALL])
def test_layer_parity(device, kind, case, dtype):
    kw, shape, with_state = {**LAYER_CASES, **PROJ_CASES}[case]
    ours, theirs = run_both(_run, kind, kw, shape, with_state, dtype, device=device)
    compare(ours, theirs, f"{kind}-{case}", **TOL[dtype])


@pytest.mark.parametrize("kind", ["RNN_tanh", "LSTM", "GRU"])
def test_dropout_p0_train_and_dropout_graph(kind):
    """``dropout=0`` in training mode records nothing extra; with ``dropout > 0`` the graph
    between layers gains PyTorch's ``MulBackward0`` (mask values differ: compared by graph)."""
    kw = {"num_layers": 2, "dropout": 0.0}
    ours, theirs = run_both(_run, kind, kw, (3, 2, I), True, np.float64, train=True)
    compare(ours, theirs, **TOL[np.float64])

    def graph(lib):
        m = _build(lib, kind, {"num_layers": 2, "dropout": 0.3}, np.float64)
        x = leaf(lib, np.ones((3, 2, I)))
        with _mkldnn_off(lib):
            out = m(x)[0]
        return graph_trace(out)

    ours, theirs = run_both(graph)
    compare(ours, theirs)
    assert "MulBackward0" in {n for n, _ in theirs}


# ----------------------------------------------------------------------------- cells
CELL_CASES = {
    "batched": ({}, (3, I), True),
    "no_hx": ({}, (3, I), False),
    "unbatched": ({}, (I,), True),
    "unbatched_no_hx": ({}, (I,), False),
    "no_bias": ({"bias": False}, (2, I), True),
    "batch1": ({}, (1, I), True),
}
CELL_KINDS = ["RNNCell_tanh", "RNNCell_relu", "LSTMCell", "GRUCell"]
CELLS = [(k, c) for k in CELL_KINDS for c in CELL_CASES]


def _build_cell(lib, kind, kw, dtype, device="cpu"):
    cls, _, nl = kind.partition("_")
    kw = dict(kw, nonlinearity=nl) if nl else dict(kw)
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls)(I, H, **kw).double()
    state = {k: to_numpy(v).astype(dtype) for k, v in ref.state_dict().items()}
    m = getattr(lib.nn, cls)(I, H, **kw)
    m = m.double() if dtype == np.float64 else m
    if _is_torch(lib):
        m = m.to(device)
        state = {k: torch.tensor(v, device=device) for k, v in state.items()}
    m.load_state_dict(state)
    return m


def _run_cell(lib, kind, kw, shape, with_state, dtype, device="cpu"):
    rng = np.random.default_rng(4)
    m = _build_cell(lib, kind, kw, dtype, device)
    x = leaf(lib, rng.standard_normal(shape).astype(dtype), device)
    hshape = shape[:-1] + (H,)
    n = 2 if kind == "LSTMCell" else 1
    states = [leaf(lib, rng.standard_normal(hshape).astype(dtype), device) for _ in range(n)]
    if not with_state:
        outs = m(x)
    else:
        outs = m(x, tuple(states) if n == 2 else states[0])
    outs = list(outs) if n == 2 else [outs]
    trace = {"outs": [to_numpy(o) for o in outs]}
    if device == "cpu":
        trace["graph"] = [graph_trace(o) for o in outs]
        trace["saved"] = [_saved(o) for o in outs]
    loss = sum(
        (
            o
            * leaf(
                lib, rng.standard_normal(tuple(o.shape)).astype(dtype), device, requires_grad=False
            )
        ).sum()
        for o in outs
    )
    loss.backward()
    trace["x.grad"] = to_numpy(x.grad)
    trace["state.grad"] = [to_numpy(s.grad) if with_state else None for s in states]
    trace["grads"] = {k: to_numpy(p.grad) for k, p in m.named_parameters()}
    return trace


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("kind,case", CELLS, ids=[f"{k}-{c}" for k, c in CELLS])
def test_cell_parity(device, kind, case, dtype):
    kw, shape, with_state = CELL_CASES[case]
    ours, theirs = run_both(_run_cell, kind, kw, shape, with_state, dtype, device=device)
    compare(ours, theirs, f"{kind}-{case}", **TOL[dtype])


# ----------------------------------------------------------------------------- structure
STRUCT = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": P, "bias": False, "bidirectional": True}),
    ("LSTM", {"proj_size": P, "num_layers": 3, "batch_first": True, "dropout": 0.25}),
    ("GRU", {"bias": False, "batch_first": True}),
    ("GRU", {"num_layers": 2}),
    ("RNNCell", {}),
    ("RNNCell", {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", {}),
    ("GRUCell", {"bias": False}),
]


@pytest.mark.parametrize("cls,kw", STRUCT, ids=[f"{c}-{k}" for c, k in STRUCT])
def test_structure(cls, kw):
    """Parameter names and shapes, state_dict keys, ``all_weights``, repr, the init bound,
    ``flatten_parameters()`` and the attributes PyTorch keeps."""

    def scenario(lib):
        m = getattr(lib.nn, cls)(I, H, **kw)
        out = {
            "params": [(n, tuple(p.shape)) for n, p in m.named_parameters()],
            "state_dict": list(m.state_dict()),
            "repr": repr(m),
            "in_bound": all(float(abs(p).max()) <= 1 / H**0.5 for p in m.parameters()),
            "spread": all(float(abs(p).max()) > 0.1 / H**0.5 for p in m.parameters()),
            "attrs": {
                a: getattr(m, a)
                for a in (
                    "input_size",
                    "hidden_size",
                    "bias",
                    "num_layers",
                    "batch_first",
                    "dropout",
                    "bidirectional",
                    "proj_size",
                    "mode",
                    "nonlinearity",
                )
                if hasattr(m, a)
            },
        }
        if hasattr(m, "all_weights"):
            out["all_weights"] = [[tuple(w.shape) for w in ws] for ws in m.all_weights]
            out["same_objects"] = all(
                w is getattr(m, n)
                for ws, names in zip(m.all_weights, m._all_weights)
                for w, n in zip(ws, names)
            )
            out["flatten"] = m.flatten_parameters()
            out["flat_names"] = list(m._flat_weights_names)
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = run_both(scenario)
    compare(ours, theirs)


def test_assigning_a_weight_updates_the_flat_weights():
    def scenario(lib):
        m = lib.nn.GRU(I, H).double()
        m.weight_hh_l0 = lib.nn.Parameter(lib.zeros(3 * H, H, dtype=lib.float64))
        x = lib.ones(2, 1, I, dtype=lib.float64)
        return {"out": to_numpy(m(x)[0] * 0), "same": m._flat_weights[1] is m.weight_hh_l0}

    ours, theirs = run_both(scenario)
    compare(ours, theirs)


def test_dropout_warning_and_constructor_errors():
    def scenario(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.LSTM(I, H, dropout=0.5)
            lib.nn.GRU(I, H, num_layers=2, dropout=0.5)
        out = {"warnings": [(x.category.__name__, str(x.message)) for x in w]}
        bad = {
            "dropout": lambda: lib.nn.LSTM(I, H, dropout=1.5),
            "dropout_bool": lambda: lib.nn.RNN(I, H, dropout=True),
            "bias": lambda: lib.nn.RNN(I, H, bias=1),
            "batch_first": lambda: lib.nn.GRU(I, H, batch_first=0),
            "input_size": lambda: lib.nn.RNN(0, H),
            "input_type": lambda: lib.nn.RNN(2.0, H),
            "hidden_size": lambda: lib.nn.LSTM(I, 0),
            "hidden_type": lambda: lib.nn.LSTM(I, "4"),
            "num_layers": lambda: lib.nn.LSTM(I, H, num_layers=0),
            "proj_neg": lambda: lib.nn.LSTM(I, H, proj_size=-1),
            "proj_big": lambda: lib.nn.LSTM(I, H, proj_size=H),
            "proj_gru": lambda: lib.nn.GRU(I, H, proj_size=2),
            "proj_rnn": lambda: lib.nn.RNN(I, H, proj_size=2),
            "nonlinearity": lambda: lib.nn.RNN(I, H, nonlinearity="sigmoid"),
            "cell_nonlinearity": lambda: lib.nn.RNNCell(I, H, nonlinearity="gelu")(lib.ones(1, I)),
        }
        out["errors"] = {k: err(f) for k, f in bad.items()}
        return out

    ours, theirs = run_both(scenario)
    compare(ours, theirs)
    assert theirs["warnings"] and theirs["warnings"][0][0] == "UserWarning"


def test_forward_errors():
    """Wrong input ranks, feature sizes, state ranks and sizes, dtypes: PyTorch's exception
    type and message."""

    def scenario(lib):
        f64 = lib.float64
        rnn, lstm = lib.nn.RNN(I, H).double(), lib.nn.LSTM(I, H, proj_size=P).double()
        gru = lib.nn.GRU(I, H, batch_first=True, num_layers=2).double()
        x = lib.ones(5, 2, I, dtype=f64)
        h = lib.zeros(1, 2, H, dtype=f64)
        cells = {c: getattr(lib.nn, c)(I, H).double() for c in ("RNNCell", "LSTMCell", "GRUCell")}
        cases = {
            "rnn_4d": lambda: rnn(lib.ones(1, 5, 2, I, dtype=f64)),
            "rnn_1d": lambda: rnn(lib.ones(I, dtype=f64)),
            "lstm_4d": lambda: lstm(lib.ones(1, 5, 2, I, dtype=f64)),
            "gru_1d": lambda: gru(lib.ones(I, dtype=f64)),
            "feature": lambda: rnn(lib.ones(5, 2, I + 1, dtype=f64)),
            "dtype": lambda: rnn(lib.ones(5, 2, I)),
            "hidden_size": lambda: rnn(x, lib.zeros(1, 3, H, dtype=f64)),
            "hidden_rank": lambda: rnn(x, lib.zeros(2, H, dtype=f64)),
            "hidden_rank_unbatched": lambda: rnn(lib.ones(5, I, dtype=f64), h),
            "gru_hidden": lambda: gru(lib.ones(2, 5, I, dtype=f64), lib.zeros(1, 2, H, dtype=f64)),
            "lstm_h": lambda: lstm(
                x, (lib.zeros(1, 2, H, dtype=f64), lib.zeros(1, 2, H, dtype=f64))
            ),
            "lstm_c": lambda: lstm(
                x, (lib.zeros(1, 2, P, dtype=f64), lib.zeros(1, 2, P, dtype=f64))
            ),
            "lstm_rank": lambda: lstm(
                x, (lib.zeros(2, P, dtype=f64), lib.zeros(1, 2, H, dtype=f64))
            ),
            "lstm_rank_unbatched": lambda: lstm(
                lib.ones(5, I, dtype=f64),
                (lib.zeros(1, 2, P, dtype=f64), lib.zeros(1, H, dtype=f64)),
            ),
            "empty_sequence": lambda: rnn(lib.ones(0, 2, I, dtype=f64)),
            "cell_3d": lambda: cells["RNNCell"](lib.ones(1, 2, I, dtype=f64)),
            "cell_hx_3d": lambda: cells["GRUCell"](
                lib.ones(2, I, dtype=f64), lib.zeros(1, 2, H, dtype=f64)
            ),
            "lstmcell_hx_3d": lambda: cells["LSTMCell"](
                lib.ones(2, I, dtype=f64),
                (lib.zeros(2, H, dtype=f64), lib.zeros(1, 2, H, dtype=f64)),
            ),
            "cell_feature": lambda: cells["RNNCell"](lib.ones(2, I + 2, dtype=f64)),
            "cell_batch": lambda: cells["GRUCell"](
                lib.ones(2, I, dtype=f64), lib.zeros(3, H, dtype=f64)
            ),
            "cell_hidden": lambda: cells["RNNCell"](
                lib.ones(2, I, dtype=f64), lib.zeros(2, H + 1, dtype=f64)
            ),
            "lstmcell_c": lambda: cells["LSTMCell"](
                lib.ones(2, I, dtype=f64),
                (lib.zeros(2, H, dtype=f64), lib.zeros(2, H + 1, dtype=f64)),
            ),
        }
        return {k: err(f) for k, f in cases.items()}

    ours, theirs = run_both(scenario)
    compare(ours, theirs)
    assert all(v is not None for v in theirs.values())


# ----------------------------------------------------------------------------- training
def test_lstm_sgd_steps(device):
    """A 2-layer LSTM with a linear head, MSE loss, SGD(momentum): parameters equal after
    each of three steps."""

    def scenario(lib, device):
        rng = np.random.default_rng(9)
        m = _build(lib, "LSTM", {"num_layers": 2, "batch_first": True}, np.float32, device)
        opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        trace = []
        for _ in range(3):
            x = leaf(
                lib, rng.standard_normal((4, 6, I)).astype(np.float32), device, requires_grad=False
            )
            y = leaf(
                lib, rng.standard_normal((4, H)).astype(np.float32), device, requires_grad=False
            )
            opt.zero_grad()
            out, (h, _) = m(x)
            loss = lib.nn.functional.mse_loss(out[:, -1] + h[-1], y)
            loss.backward()
            opt.step()
            trace.append(
                {
                    "loss": float(loss.item()),
                    "params": {n: to_numpy(p) for n, p in m.named_parameters()},
                }
            )
        return trace

    ours, theirs = run_both(scenario, device=device)
    compare(ours, theirs, rtol=1e-5, atol=1e-6)


def test_module_hooks_see_the_nested_output():
    """A forward hook gets ``(output, (h_n, c_n))``; a full backward hook wraps the tensors at
    the top level of the output only (``grad_output`` has None for the state tuple)."""

    def scenario(lib):
        m = _build(lib, "LSTM", {"num_layers": 2}, np.float64)
        calls = []
        m.register_forward_hook(
            lambda mod, i, o: calls.append(("fwd", len(o), type(o[1]).__name__, to_numpy(o[1][1])))
        )
        m.register_full_backward_hook(
            lambda mod, gi, go: calls.append(
                ("bwd", [to_numpy(g) for g in gi], [None if g is None else to_numpy(g) for g in go])
            )
        )
        x = leaf(lib, np.linspace(-1, 1, 2 * 3 * I).reshape(2, 3, I))
        out, (h, c) = m(x)
        (out.sum() + (h * c).sum()).backward()
        return {"calls": calls, "root": graph_trace(out)[:2], "x.grad": to_numpy(x.grad)}

    ours, theirs = run_both(scenario)
    compare(ours, theirs, **TOL[np.float64])


ORDER_CASES = [
    ("RNN_tanh", {}),
    ("LSTM", {"num_layers": 2}),
    ("GRU", {"num_layers": 2}),
    ("LSTM", {"bidirectional": True}),
    ("LSTM", {"proj_size": P, "batch_first": True}),
    ("GRU", {"bidirectional": True, "bias": False}),
]


@pytest.mark.parametrize("kind,kw", ORDER_CASES, ids=[f"{k}-{kw}" for k, kw in ORDER_CASES])
def test_backward_order(kind, kw):
    """The engine reaches the parameters and the input in PyTorch's order (the ops are
    created in the order of ``RNN.cpp``, so the sequence numbers agree):
    post-accumulate-grad hooks and the input's tensor hook fire in the same sequence."""

    def scenario(lib):
        m = _build(lib, kind, kw, np.float64)
        order = []
        for n, p in m.named_parameters():
            p.register_post_accumulate_grad_hook(lambda p, n=n: order.append(n))
        x = leaf(lib, np.ones((3, 2, I)))
        x.register_hook(lambda g: order.append("x"))
        with _mkldnn_off(lib):
            out, hidden = m(x)
        h = hidden[0] if kind == "LSTM" else hidden
        (out.sum() + h.sum()).backward()
        return order

    ours, theirs = run_both(scenario)
    compare(ours, theirs)


@pytest.mark.parametrize("kind", CELL_KINDS)
def test_cell_backward_order(kind):
    def scenario(lib):
        m = _build_cell(lib, kind, {}, np.float64)
        order = []
        for n, p in m.named_parameters():
            p.register_post_accumulate_grad_hook(lambda p, n=n: order.append(n))
        x = leaf(lib, np.ones((2, I)))
        hx = leaf(lib, np.full((2, H), 0.5))
        x.register_hook(lambda g: order.append("x"))
        hx.register_hook(lambda g: order.append("hx"))
        out = m(x, (hx, hx * 2) if kind == "LSTMCell" else hx)
        (out[0] if kind == "LSTMCell" else out).sum().backward()
        return order

    ours, theirs = run_both(scenario)
    compare(ours, theirs)


def test_packed_sequence_is_a_deliberate_difference():
    """PyTorch accepts a ``PackedSequence``; minigrad has none and refuses anything that is not
    a tensor with a TypeError that says so."""
    import minigrad

    packed = torch.nn.utils.rnn.pack_sequence([torch.ones(3, I), torch.ones(2, I)])
    assert torch.nn.LSTM(I, H)(packed)[0].data.shape == (5, H)
    with pytest.raises(TypeError, match="PackedSequence is not supported"):
        minigrad.nn.LSTM(I, H)([[1.0] * I])
