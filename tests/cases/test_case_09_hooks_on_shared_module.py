"""Case 09 (jmschrei/tangermeme#54): a module called twice fires its forward hook twice (call
order) and its backward pre/full hooks twice in reverse order with per-call gradients; the
shared weight's gradient is the sum; ``parameters()`` lists it once. The script's logic is
``minigrad.parity.real_cases.case_09`` (weights copied from PyTorch's seeded init), run on both
libraries, everything it prints compared."""

import numpy as np

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_09


def test_case_09(device):
    mg, _ = assert_parity(case_09, device=device)
    assert [c[0] for c in mg["calls"]] == ["fwd", "fwd", "bwd_pre gout", "bwd gin",
                                           "bwd_pre gout", "bwd gin"]
    assert np.allclose(mg["saved_input"], mg["calls"][1][1]) and mg["parameters() count"] == 2
