"""GradientFlowMonitor: statistics equal hand-computed ones (from ``.grad`` and from PyTorch's
own module hooks), minigrad == torch on twin models, flags, plot / CSV / table."""

import csv
import io
import math

import numpy as np
import pytest
import torch

import minigrad
from minigrad.debug import GradientFlowMonitor
from minigrad.parity import compare, to_numpy

from ._models import cnn, direct_stats, loss_of, mlp, twins

STATS = ("mean", "abs_mean", "max_abs", "norm")
# full backward hooks on a model whose input needs no grad: expected, warned by PyTorch
pytestmark = pytest.mark.filterwarnings("ignore:Full backward hook is firing")


def _run(model, x, lib, device="cpu", **kw):
    """Attach a monitor, run one forward/backward, return the monitor."""
    xt = lib.tensor(x)
    if lib is torch:
        model, xt = model.to(device), xt.to(device)
    model.zero_grad(set_to_none=True)
    with GradientFlowMonitor(model, **kw) as mon:
        loss_of(model(xt)).backward()
    return mon


def _torch_reference(tm, x, device):
    """grad_output / grad_input captured with PyTorch's own full backward hooks, and .grad."""
    tm = tm.to(device)
    seen = {}
    handles = [m.register_full_backward_hook(
        lambda mod, gi, go, n=name: seen.__setitem__(n, (gi, go)))
        for name, m in tm.named_modules()]
    tm.zero_grad(set_to_none=True)
    with pytest.warns(UserWarning, match="Full backward hook is firing"):
        loss_of(tm(torch.tensor(x).to(device))).backward()
    for h in handles:
        h.remove()
    mods = {n: ([to_numpy(g) for g in gi if g is not None], [to_numpy(g) for g in go])
            for n, (gi, go) in seen.items()}
    grads = {n: to_numpy(p.grad) for n, p in tm.named_parameters()}
    return mods, grads


def _by_key(records):
    return {(r["name"], r["grad"]): r for r in records}


@pytest.mark.parametrize("build", [mlp, cnn], ids=["mlp", "cnn"])
def test_stats_match_grads_and_torch_hooks(build, device):
    mm, tm, x = twins(build)
    mods, grads = _torch_reference(tm, x, device)
    mg = _by_key(_run(mm, x, minigrad).report())
    th = _by_key(_run(tm, x, torch, device).report())  # (torch's full-hook warning: filtered)
    for rep in (mg, th):
        for name, g in grads.items():  # parameters: straight from .grad
            rec = rep[(name, "grad")]
            assert rec["shape"] == list(g.shape) and rec["calls"] == 1 and rec["flags"] == []
            for k, v in direct_stats(g).items():
                assert math.isclose(rec[k], v, rel_tol=1e-5, abs_tol=1e-7), (name, k)
        for name, (_gi, go) in mods.items():  # modules: PyTorch's own hook arguments
            label = name or "(model)"
            for k, v in direct_stats(np.concatenate([g.ravel() for g in go])).items():
                assert math.isclose(rep[(label, "grad_output")][k], v, rel_tol=1e-5,
                                    abs_tol=1e-7), (label, k)
    for name, (gi, _go) in mods.items():  # torch monitor also has grad_input (full hooks)
        rec = th[(name or "(model)", "grad_input")]
        assert rec["none"] == (not gi)
        if gi:
            assert math.isclose(rec["norm"], direct_stats(gi[0])["norm"], rel_tol=1e-5)
    # minigrad vs torch, record by record, on what both record
    common = [k for k in mg if k in th]
    assert len(common) == len(grads) + len(mods) + sum(k in mg for k in th if
                                                        k[1] == "grad_input")
    compare([mg[k] for k in common], [th[k] for k in common])


@pytest.mark.parametrize("lib", [minigrad, torch], ids=["minigrad", "torch"])
def test_monitor_matches_in_full_and_tensor_modes(lib):
    mm, tm, x = twins(mlp)
    model = tm if lib is torch else mm
    full = _run(model, x, lib, mode="full").report()
    tensor = _run(model, x, lib, mode="tensor").report()
    strip = [{k: v for k, v in r.items()} for r in full if r["grad"] != "grad_input"]
    compare(strip, tensor)


def test_inplace_model_uses_tensor_hooks_in_both_libraries():
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 3))

    torch.manual_seed(0)
    tm = build(torch)
    mm = build(minigrad)
    mm.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    reports = [_run(m, x, lib).report() for m, lib in ((mm, minigrad), (tm, torch))]
    assert all(r["grad"] != "grad_input" for r in reports[1])
    compare(*reports)
    relu = _by_key(reports[1])[("1", "grad_output")]
    assert relu["none"] is False and relu["calls"] == 1


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
# minigrad's mm (linalg.py) and sum (reduction.py) still let NumPy warn on inf - inf / inf * 0
# ("invalid value encountered in matmul / reduce"); torch is silent
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("lib", [minigrad, torch], ids=["minigrad", "torch"])
def test_flags_none_zero_nan_inf_vanishing_exploding(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.used = nn.Linear(3, 3)
            self.unused = nn.Linear(3, 3)
            self.scale = nn.Parameter(lib.tensor([1.0]))

        def forward(self, x, factor):
            return self.used(x) * self.scale * factor

    model = Net()
    x = lib.tensor(np.ones((2, 3), np.float32))

    def flags(factor, **kw):
        model.zero_grad(set_to_none=True)
        with GradientFlowMonitor(model, params=True, **kw) as mon:
            model(x, lib.tensor(factor)).sum().backward()
        return {(r.name, r.grad): r.flags for r in mon.records()}

    f = flags(1.0)
    assert f[("unused", "grad_output")] == ["none"] and f[("unused.weight", "grad")] == ["none"]
    assert f[("used.weight", "grad")] == [] and f[("(model)", "grad_output")] == []
    assert f[("used.weight", "grad")] == [] and f.get(("used", "grad_input"), []) == []
    assert flags(0.0)[("used.weight", "grad")] == ["zero"]
    assert flags(float("nan"))[("used.bias", "grad")] == ["nan"]
    assert flags(float("inf"))[("used.bias", "grad")] == ["inf"]
    tiny = flags(1e-9)
    assert tiny[("used.weight", "grad")] == ["vanishing"]  # |g| / |w| ~ 1e-8
    assert tiny[("used", "grad_output")] == ["vanishing"]
    assert tiny[("used.bias", "grad")] == []  # a 1-d parameter is never judged vanishing
    assert flags(float("nan"))[("used", "grad_output")] == ["nan"]  # not "zero" too
    assert flags(1e4)[("used.bias", "grad")] == ["exploding"]
    assert flags(1e4, exploding=1e5)[("used.bias", "grad")] == []


def test_named_modules_only_and_errors():
    mm, _, x = twins(mlp)
    mon = _run(mm, x, minigrad, modules=["2"])
    full = [("2", "grad_input")] if hasattr(mm[2], "register_full_backward_hook") else []
    assert [(r.name, r.grad) for r in mon.records()] == [
        ("2", "grad_output"), *full, ("2.weight", "grad"), ("2.bias", "grad")]
    with pytest.raises(KeyError, match="no module named 'nope'"):
        GradientFlowMonitor(mm, modules=["nope"])
    with pytest.raises(ValueError, match="mode must be"):
        GradientFlowMonitor(mm, mode="sometimes")


def test_detach_removes_hooks_reset_and_accumulation():
    mm, _, x = twins(mlp)
    mon = GradientFlowMonitor(mm).attach()
    assert mon.attach() is mon  # idempotent
    xt = minigrad.tensor(x)
    loss_of(mm(xt)).backward()
    loss_of(mm(xt)).backward()  # second backward: .grad accumulates
    rec = {r.name: r for r in mon.records() if r.kind == "param"}
    assert rec["0.weight"].calls == 2
    assert math.isclose(rec["0.weight"].norm, direct_stats(mm[0].weight.grad.numpy())["norm"],
                        rel_tol=1e-6)
    mon.detach()
    loss_of(mm(xt)).backward()
    assert {r.name: r for r in mon.records()}["0.weight"].calls == 2
    mon.reset()
    assert all(r.none and r.calls == 0 for r in mon.records())


def test_to_csv_and_rich_table(tmp_path):
    mm, _, x = twins(mlp)
    mm[0].bias.data = minigrad.tensor(np.full(8, -100.0, np.float32))  # dead first ReLU
    mon = _run(mm, x, minigrad)
    path = tmp_path / "grads.csv"
    text = mon.to_csv(path)
    assert path.read_text() == text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["name"] for r in rows] == [r.name for r in mon.records()]
    by_name = {(r["name"], r["grad"]): r for r in rows}
    assert by_name[("0.weight", "grad")]["flags"] == "zero"
    assert by_name[("0.weight", "grad")]["shape"] == "8x4"
    assert float(by_name[("4.bias", "grad")]["norm"]) == pytest.approx(
        direct_stats(mm[4].bias.grad.numpy())["norm"], rel=1e-6)

    from rich.console import Console

    console = Console(record=True, width=160)
    mon.print(console=console)
    out = console.export_text()
    assert "Gradient flow" in out and "0.weight" in out and "zero" in out
    assert out.count("\n") >= len(rows)


def test_plot_saved_to_png(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, tm, x = twins(cnn)
    tm[3] = torch.nn.Flatten()

    class Wrap(torch.nn.Module):  # an unused parameter: its bar is marked None
        def __init__(self):
            super().__init__()
            self.net = tm
            self.spare = torch.nn.Parameter(torch.ones(2))

        def forward(self, x):
            return self.net(x)

    model = Wrap()
    mon = _run(model, x, torch)
    fig = mon.plot()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == [n for n, _ in model.named_parameters()]
    assert ax.get_yscale() == "log"
    assert "None" in [t.get_text() for t in ax.texts]
    heights = [p.get_height() for p in ax.patches]
    assert max(heights) == pytest.approx(max(r.max_abs for r in mon.records()
                                             if r.kind == "param" and not r.none), rel=1e-6)
    path = tmp_path / "flow.png"
    fig.savefig(path)
    plt.close(fig)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    img = plt.imread(path)
    assert img.ndim == 3 and img.shape[0] > 100 and img.std() > 0.01  # not a blank canvas
    fig2 = mon.plot(kind="module")
    assert [t.get_text() for t in fig2.axes[0].get_xticklabels()][0] == "(model)"
    plt.close(fig2)


def test_full_hook_warning_filtered_while_attached():
    """torch warns when the first module's input needs no grad; the monitor silences that one
    warning while attached (as the CLI does), and only while attached."""
    import warnings

    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 2))
    x = torch.ones(2, 3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with GradientFlowMonitor(model, mode="full"):
            model(x).sum().backward()
        inside = [str(w.message) for w in seen]
        model.register_full_backward_hook(lambda *a: None)
        model(x).sum().backward()
    assert not any("Full backward hook is firing" in m for m in inside), inside
    assert any("Full backward hook is firing" in str(w.message) for w in seen)
