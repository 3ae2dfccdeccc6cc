"""Case 13 (pytorch/pytorch#187268): ``register_hook`` receives the gradient before
accumulation; ``register_post_accumulate_grad_hook`` receives the parameter itself with
``.grad`` already accumulated; returning a new tensor from it is an error (after the
accumulation); registering on a non-leaf or a no-grad tensor raises. The script's logic is
``minigrad.parity.real_cases.case_13``, run on both libraries, everything it prints compared."""

from minigrad.parity import assert_parity
from minigrad.parity.real_cases import case_13


def test_case_13(device):
    mg, _ = assert_parity(case_13, device=device)
    assert mg[-4][1:] == ("RuntimeError", "Tensor post accumulate grad hooks should return None.")
    assert [p[0] for p in mg[:3]] == ["register_hook receives", "post-accumulate hook",
                                      "w.grad after"] and mg[1][1] is True
