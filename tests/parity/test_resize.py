"""Parity of ``Tensor.resize_`` and ``Tensor.resize_as_`` (issue 19, item 3): the new shape over
the tensor's storage (values read from its storage offset, contiguous), growing and shrinking,
views sharing memory with their base, the version bump (none when the shape is unchanged), and
PyTorch's errors (a tensor that requires grad, in any grad mode; bad sizes; a bad template).

Elements beyond the old storage are uninitialised in PyTorch: only the elements that existed are
compared.
"""

import numpy as np
import pytest

from minigrad.parity import capture_error, compare, run_both, to_numpy


def state(t, known=None):
    """Shape, strides, contiguity, version and values (the first ``known`` of them)."""
    flat = to_numpy(t).reshape(-1)
    return {"shape": list(t.shape), "stride": t.stride(), "contiguous": t.is_contiguous(),
            "version": t._version, "values": flat if known is None else flat[:known]}


def _err(e):
    return None if e is None else (e[0], e[1].split(" (Triggered")[0])


def same_numel(L):
    t = L.arange(6.0)
    r = t.resize_(2, 3)
    return r is t, state(t)


def smaller(L):
    t = L.arange(6.0)
    t.resize_(2, 2)
    return state(t)


def bigger(L):
    t = L.arange(6.0)
    t.resize_((3, 3))
    return state(t, known=6)


def same_shape_keeps_the_strides_and_the_version(L):
    t = L.arange(6.0).reshape(2, 3).t()
    t.resize_(3, 2)
    return state(t)


def noncontiguous_reads_its_storage(L):
    t = L.arange(6.0).reshape(3, 2).t()
    t.resize_(2, 2)
    return state(t)


def size_object_and_list(L):
    t = L.arange(6.0)
    t.resize_(L.Size([3, 2]))
    u = L.arange(4.0)
    u.resize_([1, 4])
    return state(t), state(u)


def to_zero_elements_and_back(L):
    t = L.arange(6.0)
    t.resize_(0)
    a = state(t)
    t.resize_(2)
    return a, state(t)  # (the storage is kept: its first two elements come back)


def view_shrinks_within_its_base(L):
    base = L.arange(6.0)
    v = base[2:5]
    v.resize_(2)
    v.mul_(10)  # still base's memory
    return state(v), state(base), v._base is base


def view_grows_within_its_base(L):
    base = L.arange(6.0)
    v = base[1:3]
    v.resize_(4)
    v.add_(100)
    return state(v), state(base)


def view_grows_beyond_its_base(L):
    base = L.arange(6.0)
    v = base.view(2, 3)
    v.resize_(3, 3)
    return state(v, known=6), list(base.shape), to_numpy(base)


def expanded_view(L):
    t = L.zeros(3).expand(2, 3)
    t.resize_(4)
    return state(t, known=3)


def integer_and_bool(L):
    t = L.tensor([1, 2, 3, 4])
    t.resize_(2, 2)
    b = L.tensor([True, False, True])
    b.resize_(1)
    return state(t), state(b)


def resize_as(L):
    t = L.arange(6.0)
    r = t.resize_as_(L.zeros(3, 2).t())  # (contiguous, whatever the template's strides)
    u = L.arange(6.0).reshape(2, 3)
    u.resize_as_(L.zeros(2, 3))  # same shape: no bump
    return r is t, state(t), state(u)


def then_used_as_out(L):
    t = L.arange(6.0)
    t.resize_(0)
    L.add(L.ones(2, 2), 1, out=t)
    return state(t)


SCENARIOS = [pytest.param(f, id=f.__name__) for f in (
    same_numel, smaller, bigger, same_shape_keeps_the_strides_and_the_version,
    noncontiguous_reads_its_storage, size_object_and_list, to_zero_elements_and_back,
    view_shrinks_within_its_base, view_grows_within_its_base, view_grows_beyond_its_base,
    expanded_view, integer_and_bool, resize_as, then_used_as_out)]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_resize(scenario):
    compare(*run_both(scenario))


def leaf_requiring_grad(L):
    return L.arange(6.0, requires_grad=True).resize_(2, 3)


def leaf_requiring_grad_same_shape(L):
    return L.arange(6.0, requires_grad=True).resize_(6)


def leaf_requiring_grad_under_no_grad(L):
    t = L.arange(6.0, requires_grad=True)
    with L.no_grad():
        return t.resize_(2, 3)


def nonleaf(L):
    return (L.arange(6.0, requires_grad=True) * 2).resize_(3)


def view_of_a_leaf_requiring_grad(L):
    return L.arange(6.0, requires_grad=True)[:2].resize_(1)


def resize_as_requiring_grad(L):
    return L.zeros(3, requires_grad=True).resize_as_(L.zeros(1))


def negative_size(L):
    return L.arange(6.0).resize_(-1, 3)


def float_size(L):
    return L.arange(6.0).resize_(2.0)


def resize_as_not_a_tensor(L):
    return L.arange(6.0).resize_as_([1, 2])


ERRORS = [pytest.param(f, id=f.__name__) for f in (
    leaf_requiring_grad, leaf_requiring_grad_same_shape, leaf_requiring_grad_under_no_grad,
    nonleaf, view_of_a_leaf_requiring_grad, resize_as_requiring_grad, negative_size,
    float_size, resize_as_not_a_tensor)]


@pytest.mark.parametrize("scenario", ERRORS)
def test_resize_errors(scenario):
    a, b = run_both(lambda L: _err(capture_error(lambda: scenario(L))))
    assert b is not None, "torch raised nothing: the case is wrong"
    assert a == b


def test_a_refused_resize_changes_nothing():
    def scenario(L):
        t = L.arange(6.0, requires_grad=True)
        try:
            t.resize_(2, 3)
        except RuntimeError:
            pass
        return state(t.detach()), t._version

    compare(*run_both(scenario))


def test_resize_values_are_numpy_memory():
    """minigrad only: a view resized within its base writes the base's NumPy array."""
    import minigrad

    base = minigrad.zeros(4)
    v = base[1:3]
    v.resize_(3)
    v.fill_(1.0)
    assert np.array_equal(base.numpy(), [0.0, 1.0, 1.0, 1.0])
