"""Parity: the profiler (``autograd.profiler.profile``, ``record_function``, ``key_averages``
and its table; ``profiler.profile``) — minigrad vs PyTorch.

Times differ by nature and are never compared. What is compared: which events ran, under
which names, how many times, in which order and inside which other events (the backward
nodes the engine ran, the forward ops called at top level, the ``record_function`` labels),
the table's header columns and row count, and the errors of misuse.
"""

from collections import Counter
from importlib import import_module

import numpy as np

from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err, mk

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
W = np.array([[1.0, -2.0], [0.5, 0.5], [-1.5, 3.0]], dtype=np.float32)
EVAL = "autograd::engine::evaluate_function: "


def profiler(lib):
    return import_module(lib.__name__ + ".autograd.profiler")


def named(prof, name):
    return [e for e in prof.function_events if e.name == name]


def backward_events(prof):
    """The engine's events in the order they started: each ``evaluate_function: X`` with the
    names of its children that are not ops (the node's own event ``X``)."""
    return [(e.name, [c.name for c in e.cpu_children if not c.name.startswith("aten::")
                      and c.name not in ("detach", "detach_")])
            for e in prof.function_events if e.name.startswith(EVAL)]


def header_columns(table: str):
    """The column names of the table's header line (PyTorch's layout: split on 2+ spaces)."""
    import re

    return [c for c in re.split(r"\s{2,}", table.splitlines()[1]) if c]


def rows(table: str):
    lines = table.splitlines()
    seps = [i for i, line in enumerate(lines) if line.startswith("---")]
    return lines[seps[1] + 1:seps[2]]


# ----------------------------------------------------------------------------- backward nodes
def test_backward_node_events(device):
    """Every node the engine runs gives ``evaluate_function: <name>`` holding the node's own
    event, in the engine's order; leaves give ``torch::autograd::AccumulateGrad``."""
    def scenario(lib, device):
        P = profiler(lib)
        x, w = mk(lib, device, A, True), mk(lib, device, W, True)
        with P.profile() as prof:
            h = (x * 2 + 1).tanh()
            loss = (h @ w).relu().sum() + h.exp().mean()
            loss.backward()
        ev = backward_events(prof)
        avg = {e.key: e.count for e in prof.key_averages()}
        return {"events": ev,
                "counts": {k: v for k, v in avg.items() if k.startswith(EVAL) or k in
                           {name[len(EVAL):] for name, _ in ev}},
                "grads": [to_numpy(x.grad), to_numpy(w.grad)]}

    assert_parity(scenario, device=device)


def test_backward_events_custom_function_hooks_and_grad(device):
    """A custom Function's forward is an event named after its class and its node
    ``<Class>Backward``; ``autograd.grad`` and a backward run inside a tensor hook's profile
    record the same way; a gradient summed at an input still gives one event per node."""
    def scenario(lib, device):
        P = profiler(lib)

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = mk(lib, device, A, True)
        seen = []
        with P.profile() as prof:
            y = Twice.apply(x)
            y.register_hook(lambda g: seen.append(g.shape) or g * 1)
            z = y.sin() + y.cos() + y  # y feeds three nodes: its gradients are summed
            (gx,) = lib.autograd.grad(z.sum(), x)
        top = [e.name for e in prof.function_events if e.cpu_parent is None]
        return {"top": top, "events": backward_events(prof),
                "forward_event": [len(named(prof, "Twice")), len(named(prof, "TwiceBackward"))],
                "grad": to_numpy(gx), "hook": [list(s) for s in seen]}

    assert_parity(scenario, device=device)


def test_record_function_labels(device):
    """Labels as blocks (nested) and as a decorator (one event per call); a label around
    ``backward()`` holds the engine's events; outside a profile a label records nothing."""
    def scenario(lib, device):
        P = profiler(lib)

        @P.record_function("step")
        def step(t):
            return (t * t).sum()

        x = mk(lib, device, A, True)
        with P.record_function("before"):  # no profile yet: nothing to record into
            step(x)
        with P.profile() as prof:
            with P.record_function("outer"):
                with P.record_function("inner"):
                    loss = step(x) + step(x)
            with P.record_function("backward_pass"):
                loss.backward()
        labels = Counter(e.name for e in prof.function_events
                         if e.name in ("before", "outer", "inner", "step", "backward_pass"))
        outer = named(prof, "outer")[0]
        bwd = named(prof, "backward_pass")[0]
        return {"labels": dict(sorted(labels.items())),
                "outer_children": [c.name for c in outer.cpu_children],
                "inner_children": [c.name for c in named(prof, "inner")[0].cpu_children],
                "backward_children": [c.name for c in bwd.cpu_children],
                "parents": sorted({e.cpu_parent.name for e in prof.function_events
                                   if e.name.startswith(EVAL) and e.cpu_parent is not None})}

    assert_parity(scenario, device=device)


def test_forward_op_names(device):
    """Top-level forward events carry PyTorch's ``aten::`` names (operators included:
    ``1 - x`` is ``aten::rsub``, ``x.float()`` ``aten::to``). Indexing (``x[0]``) and tensor
    constructors are left out: minigrad does not record them."""
    def scenario(lib, device):
        P = profiler(lib)
        F = lib.nn.functional
        x, w = mk(lib, device, A, True), mk(lib, device, W)
        target = mk(lib, device, np.array([0, 1, 1, 0]))
        with P.profile() as prof:
            with P.record_function("forward"):
                y = (x - 1) * (1 - x) / 2
                y = (-y) ** 2 + x.float().exp().mean()
                y = y.view(3, 2).reshape(6).sum() + x.t().clone().max()
                z = F.linear(F.relu(x), w.t()) + x @ w + lib.zeros(2, 2, device=x.device)
                z = lib.cat([z.transpose(0, 1), z.unsqueeze(0).expand(2, 2, 2).sum(0)])
                loss = F.cross_entropy(z, target) + y
        fwd = named(prof, "forward")[0]
        return {"names": [c.name for c in fwd.cpu_children], "loss": to_numpy(loss)}

    assert_parity(scenario, device=device)


def test_record_shapes(device):
    """``record_shapes=True``: an op's tensor arguments' shapes, ``[]`` for a number;
    ``group_by_input_shape`` splits an op's averages by them."""
    def scenario(lib, device):
        P = profiler(lib)
        x, w = mk(lib, device, A), mk(lib, device, W)
        with P.profile(record_shapes=True) as prof:
            with P.record_function("forward"):
                (x * 2) @ w
                x * x
                x * x
        fwd = named(prof, "forward")[0]
        grouped = [(e.key, e.input_shapes, e.count)
                   for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::mul"]
        return {"shapes": [(c.name, c.input_shapes) for c in fwd.cpu_children],
                "grouped": grouped,
                "plain": [e.count for e in prof.key_averages() if e.key == "aten::mul"]}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- the table
def test_key_averages_table_layout(device):
    """The table's columns are PyTorch's CPU ones (minigrad adds no device column and
    PyTorch, profiling the CPU only, prints none); ``row_limit`` cuts rows; ``sort_by`` orders
    them (checked on the call counts, which do not depend on time); the footer line."""
    def scenario(lib, device):
        P = profiler(lib)
        x = mk(lib, device, A, True)
        with P.profile() as prof:
            for _ in range(3):
                y = x * 2
            (y + x).sum().backward()
        avg = prof.key_averages()
        full = avg.table(sort_by="count")
        counts = [int(r.split()[-1]) for r in rows(full)]
        short = avg.table(sort_by="self_cpu_time_total", row_limit=3)
        nodes = {e.key: e.count for e in avg if e.key.startswith(EVAL)}
        return {"header": header_columns(full), "rows_short": len(rows(short)),
                "sorted": counts == sorted(counts, reverse=True),
                "mul_count": [e.count for e in avg if e.key == "aten::mul"],
                "nodes": dict(sorted(nodes.items())),
                "footer": [line.split(":")[0] for line in full.splitlines()
                           if line.startswith("Self CPU time total")],
                "total_type": type(prof.self_cpu_time_total).__name__,
                "total_avg": (prof.total_average().key, prof.total_average().count
                              == len(prof.function_events)),
                "bad_sort": err(lambda: avg.table(sort_by="no_such_column"), "no_such_column"),
                "name_cut": any(r.strip().endswith("...") for r in rows(full))}

    assert_parity(scenario, device=device)


def test_profile_states_and_errors(device):
    """Before the block ends the averages are empty; ``enabled=False`` records nothing
    (AttributeError on its results, as PyTorch's ``None``); a profile is not reentrant;
    an empty profile prints an empty table."""
    def scenario(lib, device):
        P = profiler(lib)
        x = mk(lib, device, A, True)
        prof = P.profile()
        before = len(prof.key_averages())
        with prof:
            y = x * 2
            inside = len(prof.key_averages())
        again = err(lambda: prof.__enter__(), "not reentrant")
        off = P.profile(enabled=False)
        with off as bound:
            y.sum().backward()
        with P.profile() as empty:
            pass
        return {"before": before, "inside": inside, "after": len(prof.key_averages()) > 0,
                "again": again, "off_bound": bound is None,
                "off_events": err(lambda: off.function_events, "function_events")[0],
                "off_avg": err(lambda: off.key_averages(), "key_averages")[0],
                "empty": (str(empty), empty.key_averages().table()),
                "grad": to_numpy(x.grad)}

    assert_parity(scenario, device=device)


def test_backward_error_inside_profile(device):
    """A backward that raises inside the profile leaves no event open: later events are not
    nested under the failed node."""
    def scenario(lib, device):
        P = profiler(lib)
        x = mk(lib, device, A, True)
        with P.profile() as prof:
            y = x.exp()
            z = y.sum()
            y.mul_(2)  # the saved result of exp is modified: its backward fails
            failed = err(lambda: z.backward(), "modified by an inplace operation")
            with P.record_function("after"):
                (x * 3).sum().backward()
        return {"failed": failed, "after_parent": named(prof, "after")[0].cpu_parent is None,
                "events": backward_events(prof)}

    assert_parity(scenario, device=device)


def test_torch_profiler_namespace(device):
    """``profiler.profile(activities=[ProfilerActivity.CPU])`` with ``start``/``stop`` and
    ``step``, ``events()``; ``profiler.record_function`` is the autograd profiler's."""
    def scenario(lib, device):
        tp = import_module(lib.__name__ + ".profiler")
        x = mk(lib, device, A, True)
        prof = tp.profile(activities=[tp.ProfilerActivity.CPU], record_shapes=True)
        prof.start()
        with tp.record_function("train_step"):
            (x * x).sum().backward()
        prof.step()
        prof.stop()
        names = Counter(e.name for e in prof.events() if e.name.startswith(EVAL)
                        or e.name == "train_step")
        return {"same": tp.record_function is profiler(lib).record_function,
                "cpu": tp.ProfilerActivity.CPU in tp.supported_activities(),
                "names": dict(sorted(names.items())),
                "header": header_columns(prof.key_averages().table(row_limit=2)),
                "events_type": type(prof.events()).__name__}

    assert_parity(scenario, device=device)


def test_no_profile_leaves_nothing_installed():
    """minigrad only: after a profile the op entry points are the original functions again
    and the engine's flag is cleared (what makes the profiler free when unused)."""
    import minigrad
    from minigrad.autograd import engine
    from minigrad.autograd.function import Function

    before = (minigrad.Tensor.__mul__, minigrad.mul, minigrad.nn.functional.linear,
              vars(Function)["apply"])
    with minigrad.autograd.profiler.profile():
        assert minigrad.Tensor.__mul__ is not before[0]
        assert engine._profile is not None
    after = (minigrad.Tensor.__mul__, minigrad.mul, minigrad.nn.functional.linear,
             vars(Function)["apply"])
    assert after == before
    assert engine._profile is None


def test_optimizer_labels(device):
    """An optimizer's ``zero_grad`` and ``step`` are labelled as PyTorch labels them
    (``Optimizer.step#SGD.step``), the step's hooks inside its label."""
    def scenario(lib, device):
        P = profiler(lib)
        w = mk(lib, device, A, True)
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
        opt.register_step_pre_hook(lambda o, a, k: lib.ones(1) and None)  # an op in the label
        with P.profile() as prof:
            for _ in range(2):
                opt.zero_grad()
                (w * 2).sum().backward()
                opt.step()
        top = [e.name for e in prof.function_events if e.cpu_parent is None]
        step = named(prof, "Optimizer.step#SGD.step")[0]
        return {"top": top, "in_step": "aten::ones" in [c.name for c in step.cpu_children],
                "w": to_numpy(w)}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- what PyTorch's
# test_autograd.py checks of its profiler (our own tests of the same behaviours)
def test_sequence_numbers_link_forward_and_backward(device):
    """A forward op that recorded a node and that node's two backward events share one
    ``sequence_nr`` (>= 0); ops inside a derivative formula, labels and AccumulateGrad have
    -1; ``_profiler_enabled()`` is True only inside the block."""
    def scenario(lib, device):
        P = profiler(lib)
        x, y = mk(lib, device, A, True), mk(lib, device, A * 2, True)
        with P.profile() as prof:
            enabled_inside = lib.autograd._profiler_enabled()
            with P.record_function("label"):
                z = (x + y).sum()
                w = x * 3
            (z + w.sum()).backward()
        by_seq = {}
        for e in prof.function_events:
            if e.cpu_parent is not None and e.cpu_parent.name == "label":
                by_seq.setdefault(e.sequence_nr, []).append(e.name)
        links = []
        for e in prof.function_events:
            if e.name.startswith(EVAL):
                node = e.name[len(EVAL):]
                inner = [c for c in e.cpu_children if c.name == node][0]
                links.append((node, e.sequence_nr == inner.sequence_nr,
                              by_seq.get(e.sequence_nr, []) if e.sequence_nr >= 0 else -1))
        formula_ops = sorted({c.sequence_nr for e in prof.function_events
                              if not e.name.startswith(("aten::", "label", EVAL))
                              for c in e.cpu_children})
        return {"links": links, "formula_ops": formula_ops,
                "label": named(prof, "label")[0].sequence_nr,
                "enabled": (enabled_inside, lib.autograd._profiler_enabled())}

    assert_parity(scenario, device=device)


def test_event_objects_and_str(device):
    """``FunctionEvent`` / ``FunctionEventAvg`` built by hand add up as PyTorch's (an average
    added to itself doubles); ``str(prof)`` is ``prof.table()`` (every event, not averaged)
    and shows a decorated function's label; ``export_chrome_trace`` writes the events."""
    def scenario(lib, device, tmp):
        P = profiler(lib)
        U = import_module(lib.__name__ + ".autograd.profiler_util")
        avg = U.FunctionEventAvg()
        avg.add(U.FunctionEvent(id=0, node_id=0, name="foo", thread=0, start_us=10, end_us=15))
        avg.add(U.FunctionEvent(id=1, node_id=0, name="foo", thread=0, start_us=20, end_us=30))
        avg.add(avg)

        @P.record_function("my_func")
        def f(a, b):
            return a + b

        x = mk(lib, device, A)
        with P.profile() as prof:
            f(x, x)
            f(x, 1)
        path = f"{tmp}/{lib.__name__}.json"
        prof.export_chrome_trace(path)
        import json

        with open(path) as fh:
            trace = [e["name"] for e in json.load(fh)["traceEvents"]
                     if e["name"] in ("my_func", "aten::add")]
        return {"avg": (avg.key, avg.count, avg.cpu_time_total, avg.self_cpu_time_total,
                        avg.cpu_time, avg.device_time_total),
                "str_is_table": str(prof) == prof.table(),
                "label_shown": "my_func" in str(prof),
                "rows": len(rows(prof.table())) == len(prof.function_events),
                "trace": trace}

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        assert_parity(scenario, device=device, tmp=tmp)


def test_record_shapes_of_linear_layers(device):
    """``record_shapes``: each ``aten::linear`` of two layers has its input, weight and bias
    shapes."""
    def scenario(lib, device):
        P = profiler(lib)
        lib.manual_seed(0)
        l1, l2 = lib.nn.Linear(5, 4), lib.nn.Linear(4, 3)
        if lib.__name__ == "torch":
            l1, l2 = l1.to(device), l2.to(device)
        x = mk(lib, device, np.ones((6, 5), dtype=np.float32))
        with P.profile(record_shapes=True) as prof:
            l2(l1(x))
        return [e.input_shapes for e in prof.function_events if e.name == "aten::linear"]

    assert_parity(scenario, device=device)


def test_record_function_exits_out_of_order(device):
    """A label may end while a label opened after it is still open, or be entered again
    inside another one (neither raises, with or without a profile); the events keep their
    names and the later label is not ended by the earlier one's exit."""
    def scenario(lib, device):
        P = profiler(lib)
        out = []
        for profiled in (False, True):
            prof = P.profile(enabled=profiled)
            with prof:
                rf = P.record_function("outer")
                rf.__enter__()
                with P.record_function("inner"):
                    rf.__exit__(None, None, None)
                    mk(lib, device, A) * 2
                with P.record_function("inner2"):
                    rf.__enter__()
                rf.__exit__(None, None, None)
            if profiled:  # (the labels: PyTorch's op has inner ops that minigrad has not)
                out.append([(e.name, e.cpu_parent.name if e.cpu_parent else None)
                            for e in prof.function_events if "inner" in e.name
                            or e.name in ("outer", "aten::mul")])
        return out

    assert_parity(scenario, device=device)
