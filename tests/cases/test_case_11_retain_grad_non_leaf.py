"""Case 11 (pytorch/tutorials#3652): ``retain_grad()`` on a non-leaf fills its ``.grad`` (and
accumulates across backward calls); on a leaf it is a no-op; on a tensor without grad it
raises; reading ``.grad`` of a non-retaining non-leaf warns. The script's logic is
``minigrad.parity.real_cases.case_11``, run on both libraries, everything it prints compared."""

import numpy as np

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_11


def test_case_11(device):
    mg, _ = assert_parity(case_11, device=device)
    assert mg[2] == ("retains_grad after", False, True, False) and mg[5][2] == 1
    assert mg[3][1] == "RuntimeError" and mg[6][0] == "UserWarning"
    assert np.allclose(mg[-1][2], 2 * mg[-1][1])
