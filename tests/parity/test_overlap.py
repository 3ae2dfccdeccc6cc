"""Writes whose source shares memory with the destination: PyTorch refuses a *partial* overlap
("some elements of the input tensor and the written-to tensor refer to a single memory
location") and allows a full one (the same bytes, the same strides) or one it cannot analyse
(a non-dense view). The values after an allowed write and the error of a refused one must match.
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err, mk

ARANGE = np.arange(16, dtype=np.float32)

# name -> (shape of the base, write(base))
WRITES = {
    # x[:, ::2] of a (1, 1, 2) tensor covers x's bytes, but dim 1's stride is doubled: partial
    "setitem_step_on_size1_dim": ((1, 1, 2), lambda x: x.__setitem__(
        (slice(None), slice(None, None, 2)), x)),
    "setitem_full": ((2, 3), lambda x: x.__setitem__(slice(None), x)),
    "setitem_leading_one": ((1, 3), lambda x: x.__setitem__(slice(None), x)),
    "setitem_unsqueezed_value": ((3,), lambda x: x.__setitem__(slice(None), x.unsqueeze(0))),
    "setitem_disjoint_steps": ((4,), lambda x: x.__setitem__(slice(None, None, 2), x[1::2])),
    "setitem_shifted": ((4,), lambda x: x.__setitem__(slice(1, None), x[:-1])),
    "copy_self": ((2, 3), lambda x: x.copy_(x)),
    "copy_same_view": ((2, 3), lambda x: x.copy_(x.view(2, 3))),
    "copy_transpose": ((3, 3), lambda x: x.copy_(x.t())),
    "copy_shifted": ((4,), lambda x: x[1:].copy_(x[:-1])),
    "copy_disjoint_steps": ((4,), lambda x: x[::2].copy_(x[1::2])),
    "add_transpose": ((3, 3), lambda x: x.add_(x.t())),
    "add_self": ((3, 3), lambda x: x.add_(x)),
    "add_unsqueezed": ((3,), lambda x: x.add_(x.unsqueeze(0))),
    "add_shifted": ((4,), lambda x: x[1:].add_(x[:-1])),
    # a one-element value through one bool mask is a masked_fill of its value: allowed ...
    "setitem_mask_own_element": ((4,), lambda x: x.__setitem__(x > 2, x[0])),
    # ... through an index tensor (or a 0-dim bool tensor, which is one) it is refused
    "setitem_index_own_element": ((4,), lambda x: x.__setitem__((x[:2] * 0).long(), x[1])),
    "setitem_0d_mask_self": ((), lambda x: x.__setitem__(x > 0, x)),
    "setitem_true_self": ((), lambda x: x.__setitem__(True, x)),
    "setitem_none_self": ((), lambda x: x.__setitem__(None, x)),
    # the (1, 1) value loses both leading 1s: a 0-dim source, expanded with strides 0
    "setitem_none_self_1x1": ((1, 1), lambda x: x.__setitem__(None, x)),
    "setitem_none_self_1x3": ((1, 3), lambda x: x.__setitem__(None, x)),
    "setitem_mask_self_1x1": ((1, 1), lambda x: x.__setitem__(x > 0, x)),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_overlapping_write(name, device):
    shape, write = WRITES[name]

    def scenario(lib, device):
        x = mk(lib, device, ARANGE[:int(np.prod(shape))].reshape(shape))
        error = err(lambda: write(x), "refer to a single memory location")
        return error, to_numpy(x), x._version

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("shape,target", [((3, 1), (2, 3, 4)), ((3, 1), (1, 3, 1)),
                                          ((3,), (1, 1, 3)), ((1,), (2, 1)), ((), (1, 2)),
                                          ((), (1, 1))])
def test_expand_strides(shape, target, device):
    """``expand`` gives new leading size-1 dims PyTorch's strides (not NumPy's 0): the overlap
    checks above compare strides, size-1 dims included."""

    def scenario(lib, device):
        x = mk(lib, device, np.ones(shape, dtype=np.float32))
        return x.expand(*target).stride()

    assert_parity(scenario, device=device)
