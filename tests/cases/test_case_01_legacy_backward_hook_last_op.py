"""Case 01 (pytorch/pytorch#598): a legacy ``register_backward_hook`` sees the grad_input of the
module's *last* autograd node only (2 entries for ``x + y + z``), with a FutureWarning at forward
time; a full backward hook sees one gradient per module input. The script's logic is
``minigrad.parity.real_cases.case_01``, run on both libraries, everything it prints compared."""

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_01


def test_case_01(device):
    mg, _ = assert_parity(case_01, device=device)
    assert [p[1] for p in mg if p[0] in ("legacy hook", "full hook")] == [2, 1, 3]
    assert ("warning during forward", "FutureWarning") in [p[:2] for p in mg]
    assert ("x/y/z grads are all ones", True) in mg
