"""``minigrad doctor``: verdicts and exit codes for the built-in models in both frameworks,
``file.py:factory`` targets, and clear exit-2 messages for bad usage."""

import inspect
import io
import textwrap

import pytest
from rich.console import Console

from minigrad.cli import main
from minigrad.debug import examples
from minigrad.debug.doctor import run_doctor

FRAMEWORKS = pytest.mark.parametrize("framework", ["minigrad", "torch"])


def _doctor(target, **kw):
    console = Console(file=io.StringIO(), width=200, record=True)
    code = run_doctor(target, console=console, **kw)
    return code, console.export_text()


def _line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


@FRAMEWORKS
def test_healthy_exit_0(framework):
    code, out = _doctor("healthy", framework=framework)
    assert code == 0, out
    assert "HEALTHY: no problems found" in out
    assert "every module and tensor used in forward is registered" in out
    assert "no NaN/Inf" in out and "gradients look fine" in out
    assert f"({framework} model Sequential, input (16, 4))" in out


@FRAMEWORKS
def test_stuck_flagged(framework):
    code, out = _doctor("stuck", framework=framework)
    line = _line_of(examples.build_stuck, "body = nn.Sequential(")
    assert code == 1
    assert "[unregistered_module] Sequential (2 parameter tensors) is created inside forward()" \
        in out
    assert f"examples.py:{line}: body = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU())" in out
    assert "fix: create it once in __init__" in out
    # one problem for the module; its two parameters are one line under it, not two findings
    assert "PROBLEMS FOUND (1)" in out and "1 registration problem(s)" in out
    assert "its parameters 0.weight, 0.bias get gradients, but model.parameters() does not " \
        "list them" in out


@FRAMEWORKS
def test_nan_names_log_node_and_line(framework):
    code, out = _doctor("nan", framework=framework)
    line = _line_of(examples.build_nan, "z = lib.log(h)")
    assert code == 1
    assert (f"forward: LogBackward0 in the model produced a non-finite output (63 NaN, 0 Inf), "
            f"created at "
            f"minigrad/debug/examples.py:{line}: z = lib.log(h)") in out
    assert ("non-finite values: first made by LogBackward0 in the model at "
            f"minigrad/debug/examples.py:{line}") \
        in out
    assert "nan: NaN gradient" in out


@FRAMEWORKS
def test_dead_relu_zero_flags(framework):
    code, out = _doctor("dead-relu", framework=framework)
    assert code == 1
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if "│" in line}
    for name in ("0", "0.weight", "0.bias", "2.weight"):
        assert rows[name].rstrip("│ ").endswith("zero"), name
    assert "2.bias" not in rows  # the last bias still learns
    assert "zero: the gradient is exactly zero (dead ReLUs" in out


def _write(tmp_path, body, name="model.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_file_factory_torch_and_lib_argument(tmp_path):
    path = _write(tmp_path, """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [nn.Linear(4, 4)]
                self.head = nn.Linear(4, 2)

            def forward(self, x):
                return self.head(self.layers[0](x))

        def make():
            return Net(), torch.randn(3, 4)

        def make_lib(lib):
            return lib.nn.Sequential(lib.nn.Linear(5, 2))
        """)
    code, out = _doctor(f"{path}:make")
    assert code == 1 and "plain Python list (layers[0])" in out and "nn.ModuleList" in out
    assert "(torch model Net, input (3, 4))" in out
    code, out = _doctor(f"{path}:make_lib", input_shape=(2, 5))
    assert code == 0 and "(minigrad model Sequential, input (2, 5))" in out
    code, out = _doctor(f"{path}:make_lib", input_shape=(2, 5), framework="torch")
    assert code == 0 and "(torch model Sequential" in out
    code, out = _doctor(f"{path}:make", framework="minigrad")
    assert code == 2 and "returned a torch model but --framework minigrad was given" in out


@pytest.mark.parametrize("body, target, message", [
    (None, "nonsense", "unknown target 'nonsense': give a built-in model (stuck, nan, healthy, "
     "dead-relu) or path/to/file.py:factory"),
    (None, "missing.py:make", "cannot read missing.py: no such file"),
    ("def make(:\n", "{path}:make", "SyntaxError at line 1"),
    ("import no_such_module_xyz\n", "{path}:make", "ModuleNotFoundError: No module named"),
    ("def build():\n    pass\n", "{path}:make", "has no callable 'make' (callables defined "
     "there: build)"),
    ("def make():\n    raise ValueError('bad size')\n", "{path}:make",
     "make() raised ValueError: bad size"),
    ("def make():\n    return 42\n", "{path}:make", "returned int, not a minigrad or torch "
     "nn.Module"),
    ("import minigrad\ndef make():\n    return minigrad.nn.Linear(3, 2)\n", "{path}:make",
     "gave no example input: return (model, input) from the factory or pass --input-shape"),
    ("import minigrad\ndef make():\n    return minigrad.nn.Linear(3, 2), minigrad.ones(2, 4)\n",
     "{path}:make", "running one step of"),
])
def test_bad_usage_exit_2(tmp_path, monkeypatch, body, target, message):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path, body) if body is not None else None
    code, out = _doctor(target.format(path=path))
    assert code == 2
    assert "minigrad doctor: error:" in out
    assert message in " ".join(out.split()), out


def test_cli_entry_point(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["doctor", "healthy"]) == 0
    assert "HEALTHY" in capsys.readouterr().out
    assert main(["doctor", "dead-relu", "--framework", "torch"]) == 1
    assert "PROBLEMS FOUND" in capsys.readouterr().out
    assert main(["doctor", "nowhere.py:f"]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["doctor", "healthy", "--input-shape", "1,x"])
    assert exc.value.code == 2
    assert "expected comma-separated sizes like 1,3,32,32" in capsys.readouterr().err


def test_loss_option_and_json(capsys, monkeypatch):
    """--loss gives a real loss against a generated target; --json a report for scripts."""
    import json

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["doctor", "healthy", "--loss", "cross_entropy"]) == 0
    out = capsys.readouterr().out
    assert "Loss loss_fn(output, target) = " in out and "Stand-in" not in out
    assert main(["doctor", "dead-relu", "--framework", "torch", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["healthy"] is False and report["loss_kind"] == "stand-in"
    assert any(p.startswith("zero: the gradient is exactly zero") for p in report["problems"])
    assert {g["name"] for g in report["gradients"] if "zero" in g["flags"]} >= {"0.weight"}
    with pytest.raises(SystemExit):
        main(["doctor", "healthy", "--loss", "hinge"])
    assert "invalid choice: 'hinge'" in capsys.readouterr().err


def test_factory_with_step_and_loss(tmp_path):
    path = _write(tmp_path, """
        import torch

        def make():
            model = torch.nn.Linear(3, 2)
            x, y = torch.ones(4, 3), torch.zeros(4, 2)
            return model, lambda m: torch.nn.functional.mse_loss(m(x), y)

        def bad():
            return torch.nn.Linear(3, 2), torch.ones(4, 3), None
        """)
    code, out = _doctor(f"{path}:make")
    assert code == 0 and "Loss step(model) = " in out and "step(model))" in out
    code, out = _doctor(f"{path}:bad")
    assert code == 2 and "returned a tuple of 3 items" in out
