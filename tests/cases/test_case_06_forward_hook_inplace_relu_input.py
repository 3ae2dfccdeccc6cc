"""Case 06 (pytorch/pytorch#95617): on ``ReLU(inplace=True)`` the forward hook's input already
holds the result (same object as the output, version 1); the pre-hook saw the original values.
The script's logic is ``minigrad.parity.real_cases.case_06``, run on both libraries,
everything it prints compared."""

import numpy as np

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_06


def test_case_06(device):
    mg, _ = assert_parity(case_06, device=device)
    assert mg[3][2] is True and mg[4][2] == 1 and np.allclose(mg[2][1], [1.23, 0.0])
    assert mg[1][2] == 0 and mg[8][2] is False
