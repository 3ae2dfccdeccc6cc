"""The doctor on a zoo of models (``tests/debug/zoo.py``): every healthy model gets exit 0 and
no problem listed, every buggy one exit 1 with the finding naming the mechanism and, where the
finding has a location, the ``# BUG`` line. Each runs through ``run_doctor`` with a
``zoo.py:factory`` target, as ``minigrad doctor`` would; twins run in both frameworks."""

import inspect
import io
import os

import pytest
from rich.console import Console

from minigrad.debug.doctor import run_doctor

from . import zoo

ZOO = os.path.join(os.path.dirname(__file__), "zoo.py")
# a finding with a location names the line marked "# BUG"
LOCATED = {zoo.seq_in_forward, zoo.recreated_submodule, zoo.detached,
           zoo.no_grad_in_forward, zoo.numpy_round_trip, zoo.log_of_relu, zoo.sqrt_of_negative,
           zoo.division_by_zero, zoo.exp_overflow, zoo.nan_in_loss}


def _cases(factories):
    return [pytest.param(f, fw, id=f"{f.__name__}-{fw}") for f in factories
            for fw in (("torch", "minigrad") if f in zoo.TWINS else ("torch",))]


def _doctor(factory, framework):
    console = Console(file=io.StringIO(), width=250, record=True)
    code = run_doctor(f"{ZOO}:{factory.__name__}", framework=framework, console=console)
    return code, " ".join(console.export_text().split())


def _bug_line(factory):
    target = factory if factory is not zoo.log_of_relu else zoo._nan_model
    lines, start = inspect.getsourcelines(target)
    marks = [start + i for i, line in enumerate(lines) if "# BUG" in line]
    if factory in (zoo.sqrt_of_negative, zoo.division_by_zero, zoo.exp_overflow):
        kind = {"sqrt_of_negative": "sqrt", "division_by_zero": "h - h",
                "exp_overflow": "exp"}[factory.__name__]
        lines, start = inspect.getsourcelines(zoo._nan_model)
        marks = [start + i for i, line in enumerate(lines) if "# BUG" in line and kind in line]
    return marks[0]


def test_zoo_size():
    twins = zoo.TWINS & set(zoo.HEALTHY + list(zoo.BUGGY))
    assert len(zoo.HEALTHY) >= 15 and len(zoo.BUGGY) >= 12
    assert len(twins) >= (len(zoo.HEALTHY) + len(zoo.BUGGY)) / 2


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("factory, framework", _cases(zoo.HEALTHY))
def test_healthy(factory, framework):
    code, out = _doctor(factory, framework)
    assert code == 0, out
    assert "HEALTHY: no problems found" in out and "PROBLEMS FOUND" not in out, out


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@pytest.mark.parametrize("factory, framework", _cases(zoo.BUGGY))
def test_buggy(factory, framework):
    code, out = _doctor(factory, framework)
    assert code == 1, out
    assert "PROBLEMS FOUND" in out and zoo.BUGGY[factory] in out, out
    if factory in LOCATED:
        assert f"zoo.py:{_bug_line(factory)}:" in out, out
