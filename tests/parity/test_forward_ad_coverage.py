"""Forward AD through every backward node minigrad defines (issue 23).

The programs of `test_node_coverage.CASES` (one per node: the expression that makes PyTorch
record it) run again inside a ``dual_level`` with every input a dual tensor (random tangents,
float64). Compared with PyTorch: the output's value and tangent, or the type of the error
(PyTorch raises NotImplementedError for the few ops without a forward formula; minigrad must
raise it there too, and only there). Run twice: with inputs that require grad (the tangent is
then differentiable, as PyTorch's; the double-backward programs then run forward over reverse)
and without (where the double-backward programs raise, in both libraries).
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.parity import compare, to_numpy
from tests.parity.test_node_coverage import ARRAYS, CASES

TANGENTS = {k: np.random.default_rng(100 + i).standard_normal(a.shape)
            for i, (k, a) in enumerate(ARRAYS.items())}


def _scenario(lib, case, requires_grad):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        t = {k: fwAD.make_dual(lib.tensor(a, requires_grad=requires_grad),
                               lib.tensor(TANGENTS[k])) for k, a in ARRAYS.items()}
        try:
            out = case(lib, t) if callable(case) else eval(case, {"lib": lib, "t": t, "np": np})
        except Exception as e:  # noqa: BLE001 - the type is compared
            return {"error": type(e).__name__}
        tangent = fwAD.unpack_dual(out).tangent
        return {"value": to_numpy(out),
                "tangent": None if tangent is None else to_numpy(tangent),
                "tangent_requires_grad": None if tangent is None else tangent.requires_grad}


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_ad_through_node(name, requires_grad, libs):
    mg, torch = libs
    theirs = _scenario(torch, CASES[name], requires_grad)
    ours = _scenario(mg, CASES[name], requires_grad)
    compare(ours, theirs, name, rtol=1e-6, atol=1e-8)
