"""Writes whose source shares memory with the destination: PyTorch refuses a *partial* overlap
("some elements of the input tensor and the written-to tensor refer to a single memory
location") and allows a full one (the same bytes, the same strides) or one it cannot analyse
(a non-dense view). The values after an allowed write and the error of a refused one must match.
"""

from __future__ import annotations

import warnings

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


EXPANDED_WRITES = {
    "fill_": lambda lib, e: e.fill_(0.5),
    "zero_": lambda lib, e: e.zero_(),
    "masked_fill_": lambda lib, e: e.masked_fill_(e > 0, 1.5),
    "fill_tensor": lambda lib, e: e.fill_(e[0, 0].detach() * 0 + 2),
    "setitem_row": lambda lib, e: e.__setitem__(0, 2.0),
    "setitem_all": lambda lib, e: e.__setitem__(slice(None), 2.0),
    "setitem_element": lambda lib, e: e.__setitem__((0, 1), 2.0),
    "column_add_": lambda lib, e: e[:, 0].add_(1),
    "setitem_mask": lambda lib, e: e.__setitem__(e > 0, 2.0),
    "setitem_index": lambda lib, e: e.__setitem__((e[:1, 0] * 0).long(), 2.0),
    "setitem_index_tensor": lambda lib, e: e.__setitem__((e[:2, 0] * 0).long(),
                                                         e[:2].detach() * 0 + 7),
    "add_": lambda lib, e: e.add_(1),
    "copy_": lambda lib, e: e.copy_(e.detach() * 0 + 1),
    # copying a tensor onto itself, or onto a view of the same data: PyTorch returns before
    # it writes or checks anything (the version is bumped, the history rewritten)
    "copy_itself": lambda lib, e: e.copy_(e),
    "copy_same_data": lambda lib, e: e.copy_(e.detach().expand(3, 2)),
    "copy_other_layout": lambda lib, e: e.copy_(e[:, :1]),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", list(EXPANDED_WRITES))
def test_write_to_expanded_tensor(name, requires_grad, device):
    """In-place writes to ``x.expand(3, 2)`` (each row one memory cell): PyTorch refuses most
    with its overlap error but lets fill_/zero_ with a number, masked_fill_ and index_put_
    write (the last two with a deprecation warning), writes to cells no two elements share,
    and then refuses a backward through the overlapping write."""

    def scenario(lib, device):
        leaf = mk(lib, device, np.array([[1.0], [-2.0], [3.0]]), requires_grad=requires_grad)
        x = leaf * 1 if requires_grad else leaf
        e = x.expand(3, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            error = err(lambda: EXPANDED_WRITES[name](lib, e), "single memory location")
        out = [error, to_numpy(x.detach()), x._version, [str(w.message)[:40] for w in caught]]
        if requires_grad and error is None:
            weights = mk(lib, device, np.arange(6.0).reshape(3, 2))
            out.append(err(lambda: (e * weights).sum().backward(), "single memory location"))
            out.append(None if leaf.grad is None else to_numpy(leaf.grad))
        return out

    assert_parity(scenario, device=device)
