"""``out=`` that is not a tensor on the norm functions (issue 19): ``linalg.matrix_norm`` and
``linalg.norm`` (composites) raise the TypeError of PyTorch's argument parser with its list of
overloads, ``torch.norm`` the error of the function it dispatches to (``linalg_vector_norm``, or
``linalg_matrix_norm`` for ``p='nuc'``), ``linalg.vector_norm`` its own."""

import numpy as np
import pytest

from minigrad.parity import compare, run_both

CASES = {
    "matrix_norm": lambda L, x, o: L.linalg.matrix_norm(x, out=o),
    "matrix_norm_nuc": lambda L, x, o: L.linalg.matrix_norm(x, "nuc", out=o),
    "matrix_norm_ord_kw": lambda L, x, o: L.linalg.matrix_norm(x, ord=1, out=o),
    "linalg_norm": lambda L, x, o: L.linalg.norm(x, out=o),
    "linalg_norm_ord": lambda L, x, o: L.linalg.norm(x, 2, out=o),
    "vector_norm": lambda L, x, o: L.linalg.vector_norm(x, out=o),
    "norm": lambda L, x, o: L.norm(x, out=o),
    "norm_p1_dim": lambda L, x, o: L.norm(x, p=1, dim=1, out=o),
    "norm_fro": lambda L, x, o: L.norm(x, p="fro", out=o),
    "norm_nuc": lambda L, x, o: L.norm(x, p="nuc", out=o),
    "norm_nuc_dim": lambda L, x, o: L.norm(x, p="nuc", dim=(0, 1), out=o),
}
OUTS = {"int": 3, "float": 2.0, "list": [1.0], "str": "out"}


def _parser_lines(message: str) -> list:
    """The first line and the overload lines (`` * (...)``) of the message: PyTorch adds
    "didn't match because ..." details, minigrad what to pass instead."""
    lines = message.split("\n")
    return [lines[0]] + [ln for ln in lines[1:] if ln.startswith(" * (")]


@pytest.mark.parametrize("out", list(OUTS))
@pytest.mark.parametrize("case", list(CASES))
def test_out_not_a_tensor(case, out):
    def scenario(L):
        x = L.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
        try:
            CASES[case](L, x, OUTS[out])
        except Exception as e:  # noqa: BLE001 - the error is the trace
            return type(e).__name__, _parser_lines(str(e))
        return None

    a, b = run_both(scenario)
    assert b is not None, "torch raised nothing: the case is wrong"
    compare(a, b)
