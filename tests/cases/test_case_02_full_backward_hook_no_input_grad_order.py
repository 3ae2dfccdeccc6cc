"""Case 02 (pytorch/pytorch#100528): pre-hooks push and full backward hooks pop a module name.
With an input that requires grad the pairs nest; without, each full hook fires right after its
pre-hook with ``grad_input=(None,)`` and a UserWarning per module whose inputs need no grad.
The script's logic is ``minigrad.parity.real_cases.case_02``, run on both libraries,
everything it prints compared."""

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_02


def test_case_02(device):
    mg, _ = assert_parity(case_02, device=device)
    assert mg[0][1].startswith("Push outer | Push inner") and mg[1][3] == 3
    assert mg[1][1].startswith("Push outer | Pop  outer") and mg[1][2] == ["None"]
