"""Case 04 (pytorch/pytorch#61519): full backward hooks wrap a module's inputs and outputs in
``BackwardHookFunction`` views, so an in-place ReLU on them raises PyTorch's custom-Function view
error; out-of-place works; a tensor hook installed by a forward hook is the workaround.
The script's logic is ``minigrad.parity.real_cases.case_04``, run on both libraries,
everything it prints compared."""

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_04


def test_case_04(device):
    mg, _ = assert_parity(case_04, device=device)
    assert mg[0][1] == "RuntimeError" and "BackwardHookFunction is a view" in mg[0][2]
    assert mg[1][1:] == ("BackwardHookFunctionBackward", True)
    assert mg[-1] == ("D tensor hook grad shape", (2, 4))
