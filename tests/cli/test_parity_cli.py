"""``minigrad parity``: the built-in paired cases, the table, exit codes and mismatch output."""

import numpy as np
import pytest

import minigrad
from minigrad.cli import main
from minigrad.parity import cases, real_cases

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


# ------------------------------------------------------------------------------ real-world cases
REAL = list(real_cases.REAL_CASES)


def test_every_real_world_case_is_listed():
    """All 13 cases of ../shared/cases (scenarios live in minigrad, not read from ../shared)."""
    assert len(REAL) == 13 and all(cases.CASES[n].kind == "case" for n in REAL)
    assert [n[:2] for n in REAL] == ["01", "02", "04", "06", "07", "09", "11", "13", "16", "18",
                                     "20", "23", "26"]


@pytest.mark.parametrize("name", REAL)
def test_real_world_case_runs_and_passes(name, device, capsys):
    code = main(["parity", "--device", device, "--case", name])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 of 1 cases identical" in out and f"{name}: PASS" in out
    real = real_cases.REAL_CASES[name]
    assert real.source in out
    # both printed outputs, side by side: every line has a minigrad and a torch column
    rows = out.split(f"{name}: PASS", 1)[1].splitlines()
    header = next(i for i, r in enumerate(rows) if r.split() == ["minigrad", "|", "torch"])
    body = [r for r in rows[header + 1:] if " | " in r]
    assert len(body) >= 3 and not any(r.startswith(">") for r in body)


def test_real_world_case_side_by_side_content(capsys):
    assert main(["parity", "--case", "16", "--case", "case20"]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 cases identical" in out
    assert "16_reused_non_leaf_diamond: PASS" in out and "20_detach_vs_data_inplace: PASS" in out
    assert out.count("b tensor hook | 13.5") == 2  # once per column
    assert out.count("which is output 0 of Sigmoid") == 2


def test_real_world_case_names_by_number():
    assert cases.resolve("16") == cases.resolve("case16") == "16_reused_non_leaf_diamond"
    assert cases.resolve("case_01") == "01_legacy_backward_hook_last_op"
    with pytest.raises(KeyError, match="'99'"):
        cases.resolve("99")
    r = cases.run_case("23")
    assert r.ok and r.printed_same and r.kind == "case" and r.graph_same is None


@pytest.mark.parametrize("what", ["value", "raises"])
def test_real_world_case_mismatch(monkeypatch, capsys, what):
    def scenario(lib, device):
        mg = lib is minigrad
        x = lib.tensor([1.0, 2.0]) * 2
        if what == "raises" and mg:
            raise RuntimeError("minigrad lacks something")
        return [("same", x.tolist()), ("differs", (x * (3 if mg else 4)).tolist()),
                ("after", 1)]

    broken = cases.ParityCase("broken_case", "case", "deliberately different", (),
                              scenario=scenario)
    monkeypatch.setitem(cases.CASES, "broken_case", broken)
    monkeypatch.setitem(real_cases.REAL_CASES, "broken_case", real_cases.RealCase(
        99, "broken_case", "https://example.invalid", "deliberately different", scenario))
    assert main(["parity", "--case", "broken_case"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "mismatches: broken_case" in out
    marked = [r for r in out.splitlines() if r.startswith(">")]
    if what == "value":
        assert marked and "differs" in marked[0] and "[6.0, 12.0]" in marked[0]
        assert "[8.0, 16.0]" in marked[0]
    else:
        assert marked and "raised | RuntimeError | torch lacks something" in marked[0]
    result = cases.run_case(broken)
    assert not result.ok and result.printed_same is False and result.detail


def test_long_case_names_are_not_folded_in_a_wide_terminal(monkeypatch, capsys):
    """At 120 columns every case name is printed whole on its row (80 columns may fold)."""
    monkeypatch.setenv("COLUMNS", "120")
    name = "02_full_backward_hook_no_input_grad_order"
    assert main(["parity", "--case", name, "--case", "add"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert any(row[:2] == [name, "case"] for row in rows)
