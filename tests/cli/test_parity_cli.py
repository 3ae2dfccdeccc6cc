"""``minigrad parity``: the built-in paired cases, the table, exit codes and mismatch output."""

import numpy as np
import pytest

import minigrad
from minigrad.cli import main
from minigrad.parity import cases

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "220")  # rich wraps to the terminal width


def test_every_case_is_identical(device, capsys):
    code = main(["parity", "--device", device])
    out = capsys.readouterr().out
    assert code == 0, out
    for name in cases.CASES:
        assert name in out
    assert f"{len(cases.CASES)} of {len(cases.CASES)} cases identical" in out
    assert "FAIL" not in out and out.count("PASS") == len(cases.CASES)


def test_case_selection_and_verbose(capsys):
    assert main(["parity", "--case", "relu", "--case", "hooks_facts_5_2", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 cases identical" in out and "matmul" not in out
    # --verbose prints both traces side by side (facts §5.2: the root's full hook)
    assert "bwd [root] grad_input=((5,3),)" in out and "| " in out


def test_run_case_results():
    r = cases.run_case("hooks_input_no_grad")
    assert r.ok and r.graph_same and r.hooks_same and r.max_grad_diff is not None
    mg, th = r.traces
    assert [e["kind"] for e in mg] == [e["kind"] for e in th]
    assert any(e["kind"] == "warning" for e in mg)
    r = cases.run_case("model_inplace")  # full hooks + ReLU(inplace): the same error both sides
    assert r.ok and r.traces[0][-1]["kind"] == "error"


def _broken(name, fn):
    return cases.ParityCase(name, "op", "deliberately different", (np.ones(3, np.float32),),
                            fn=fn)


@pytest.mark.parametrize("what", ["grads", "graph"])
def test_mismatch_exit_1_and_side_by_side(monkeypatch, capsys, what):
    def fn(lib, a):
        mg = lib is minigrad
        if what == "grads":
            return a * (2.0 if mg else 3.0)
        return a.exp() if mg else a.sin()

    monkeypatch.setitem(cases.CASES, "broken", _broken("broken", fn))
    assert main(["parity", "--case", "broken"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "mismatches: broken" in out
    assert "minigrad" in out and "> " in out  # the first differing call is marked
    if what == "graph":
        assert "ExpBackward0" in out and "SinBackward0" in out
    result = cases.run_case("broken")
    assert not result.ok and (result.graph_same is False) == (what == "graph")
    assert not result.grads_close and result.max_grad_diff > 0.1


def test_bad_usage(capsys):
    assert main(["parity", "--case", "no_such_case"]) == 2
    assert "unknown case 'no_such_case'" in capsys.readouterr().out
    with pytest.raises(KeyError, match="no_such_case"):
        cases.run_cases(["no_such_case"])
    with pytest.raises(SystemExit):
        main(["parity", "--device", "tpu"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_cuda_without_gpu_is_a_clear_error(capsys):
    assert main(["parity", "--device", "cuda", "--case", "relu"]) == 2
    assert "sees no CUDA GPU" in capsys.readouterr().out
