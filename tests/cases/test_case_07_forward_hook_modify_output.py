"""Case 07 (discuss.pytorch.org 46584): a forward hook's return value replaces the output (and
its graph); an in-place edit with a None return is visible to the caller; hooks chain; a
pre-hook may replace the input. The script's logic is
``minigrad.parity.real_cases.case_07`` (weights copied from PyTorch's seeded init), run on both
libraries, everything it prints compared."""

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_07


def test_case_07(device):
    mg, _ = assert_parity(case_07, device=device)
    assert mg[1][2] == "MulBackward0" and mg[3][3] == 1
    assert mg[-2][2] == "AddBackward0" and mg[-1] == ("pre-hook zeros input", True)
