"""Parity of the factory functions: ``tensor`` dtype inference, ``zeros ones full arange
linspace eye empty *_like rand randn randint from_numpy as_tensor``, ``requires_grad=`` and their
errors. Random factories are compared on shape / dtype / flags only (minigrad's generator is
NumPy's, so the values differ by design)."""

import numpy as np
import pytest

from minigrad.parity import compare, run_both, to_numpy

from ._opcheck import check_error, default_device, dtype_name


def _facts(t, values=True):
    out = {"dtype": dtype_name(t.dtype), "shape": tuple(t.shape),
           "requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "no_grad_fn": t.grad_fn is None}
    if values:
        out["value"] = to_numpy(t)
    return out


def _scenario(lib, fn, values=True, device="cpu"):
    with default_device(lib, device):
        return _facts(fn(lib), values)


def C(id, fn):
    return pytest.param(fn, id=id)


TENSOR = [
    C("int", lambda L: L.tensor(1)),
    C("float", lambda L: L.tensor(1.5)),
    C("bool", lambda L: L.tensor(True)),
    C("int_list", lambda L: L.tensor([1, 2])),
    C("mixed_int_float", lambda L: L.tensor([1.0, 2])),
    C("bool_list", lambda L: L.tensor([True, False])),
    C("bool_int", lambda L: L.tensor([True, 2])),
    C("bool_float", lambda L: L.tensor([True, 2.5])),
    C("nested", lambda L: L.tensor([[1, 2], [3, 4]])),
    C("nested_tuples", lambda L: L.tensor(((1, 2.5), (3, 4)))),
    C("empty", lambda L: L.tensor([])),
    C("empty_nested", lambda L: L.tensor([[]])),
    C("empty_int", lambda L: L.tensor([], dtype=L.int64)),
    C("np_float64_scalar", lambda L: L.tensor(np.float64(1.5))),
    C("np_float32_scalar", lambda L: L.tensor(np.float32(2.0))),
    C("list_np_float64", lambda L: L.tensor([np.float64(1.5), 2.0])),
    C("list_np_float32", lambda L: L.tensor([np.float32(1.5), 2.0])),
    C("list_np_int32", lambda L: L.tensor([np.int32(1), np.int32(2)])),
    C("list_np_int32_int", lambda L: L.tensor([np.int32(1), 2])),
    C("np_f64_array", lambda L: L.tensor(np.array([1.0, 2.0]))),
    C("np_f32_array", lambda L: L.tensor(np.array([1.0], dtype=np.float32))),
    C("np_int32_array", lambda L: L.tensor(np.array([1, 2], dtype=np.int32))),
    C("np_uint8_array", lambda L: L.tensor(np.array([1, 2], dtype=np.uint8))),
    C("np_0dim", lambda L: L.tensor(np.array(3))),
    C("np_bool", lambda L: L.tensor(np.array([True]))),
    # torch also warns that a list of arrays is slow: a remark about its own speed, which
    # minigrad deliberately does not repeat.
    pytest.param(lambda L: L.tensor([np.array([1, 2], dtype=np.int32), [3, 4]]),
                 id="list_of_arrays", marks=pytest.mark.filterwarnings("ignore:Creating a tensor")),
    pytest.param(lambda L: L.tensor(L.ones(2, 3, dtype=L.float64)), id="from_tensor",
                 marks=pytest.mark.filterwarnings("ignore:To copy construct")),
    C("list_0dim_tensors", lambda L: L.tensor([L.tensor(1.0), L.tensor(2.0)])),
    C("list_int_tensor_float", lambda L: L.tensor([L.tensor(1), 2.5])),
    C("list_f64_tensor_int", lambda L: L.tensor([L.tensor(1.0, dtype=L.float64), 2])),
    C("dtype_float_of_ints", lambda L: L.tensor([1, 2], dtype=L.float32)),
    C("dtype_int_of_floats", lambda L: L.tensor([1.5, -2.5], dtype=L.int64)),
    C("dtype_f64_grad", lambda L: L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)),
    C("requires_grad", lambda L: L.tensor([1.0], requires_grad=True)),
    C("overflow_float32", lambda L: L.tensor([1e40, 1.0])),
]

FACTORIES = [
    C("zeros", lambda L: L.zeros(2, 3)),
    C("zeros_tuple", lambda L: L.zeros((2, 3))),
    C("zeros_list_int", lambda L: L.zeros([2, 3], dtype=L.int64)),
    C("zeros_0dim", lambda L: L.zeros(())),
    C("zeros_empty", lambda L: L.zeros(0)),
    C("ones_f64", lambda L: L.ones(3, dtype=L.float64)),
    C("ones_grad", lambda L: L.ones(2, requires_grad=True)),
    C("ones_bool", lambda L: L.ones(2, dtype=L.bool)),
    C("empty_shape", lambda L: L.empty(2, 3).zero_()),
    C("full_int", lambda L: L.full((2,), 3)),
    C("full_float", lambda L: L.full((2,), 3.5)),
    C("full_bool", lambda L: L.full((2,), True)),
    C("full_dtype", lambda L: L.full((2, 2), 1, dtype=L.float32)),
    C("full_grad", lambda L: L.full([3], 2.0, requires_grad=True)),
    C("arange", lambda L: L.arange(5)),
    C("arange_float", lambda L: L.arange(5.0)),
    C("arange_start_end", lambda L: L.arange(1, 4)),
    C("arange_float_step", lambda L: L.arange(0, 1, 0.25)),
    C("arange_int_step", lambda L: L.arange(0, 5, 2)),
    C("arange_dtype", lambda L: L.arange(5, dtype=L.float32)),
    C("arange_half_steps", lambda L: L.arange(1, 2.5, 0.5)),
    C("arange_negative_step", lambda L: L.arange(5, 0, -1)),
    C("arange_f64", lambda L: L.arange(0, 10, 3, dtype=L.float64)),
    C("arange_grad", lambda L: L.arange(5.0, requires_grad=True)),
    C("arange_tensor_arg", lambda L: L.arange(L.tensor(3))),
    C("arange_fraction_end", lambda L: L.arange(1.5)),
    C("linspace", lambda L: L.linspace(0, 1, 5)),
    C("linspace_f64", lambda L: L.linspace(0, 1, 5, dtype=L.float64)),
    C("linspace_one", lambda L: L.linspace(-1, 1, 1)),
    C("eye", lambda L: L.eye(3)),
    C("eye_rect", lambda L: L.eye(2, 3)),
    C("eye_int", lambda L: L.eye(2, dtype=L.int64)),
    C("zeros_like_f64", lambda L: L.zeros_like(L.ones(2, dtype=L.float64))),
    C("ones_like_int", lambda L: L.ones_like(L.tensor([1, 2]))),
    C("full_like_int_truncates", lambda L: L.full_like(L.tensor([1, 2]), 2.7)),
    C("full_like_float", lambda L: L.full_like(L.ones(2), 7)),
    C("zeros_like_dtype", lambda L: L.zeros_like(L.ones(2), dtype=L.int64)),
    C("ones_like_grad", lambda L: L.ones_like(L.ones(2), requires_grad=True)),
    C("like_of_grad_input", lambda L: L.zeros_like(L.ones(2, requires_grad=True))),
    C("from_numpy_f64", lambda L: L.from_numpy(np.ones(2))),
    C("from_numpy_int32", lambda L: L.from_numpy(np.ones(2, dtype=np.int32))),
    C("as_tensor_np", lambda L: L.as_tensor(np.ones(2))),
    C("as_tensor_list", lambda L: L.as_tensor([1, 2])),
    C("as_tensor_floats", lambda L: L.as_tensor([1.0, 2])),
    C("grad_under_no_grad", lambda L: _under_no_grad(L, lambda: L.ones(2, requires_grad=True))),
    C("tensor_grad_under_no_grad", lambda L: _under_no_grad(
        L, lambda: L.tensor([1.0], requires_grad=True))),
]


def _under_no_grad(lib, make):
    """Factories honour ``requires_grad=True`` even under ``no_grad``."""
    with lib.no_grad():
        return make()


@pytest.mark.parametrize("fn", TENSOR + FACTORIES)
def test_factory(fn, device):
    a, b = run_both(_scenario, fn, device=device)
    compare(a, b)


RANDOM = [
    C("randn", lambda L: L.randn(2, 3)),
    C("randn_tuple", lambda L: L.randn((2,))),
    C("randn_f64_grad", lambda L: L.randn(3, dtype=L.float64, requires_grad=True)),
    C("rand", lambda L: L.rand(2, 3, dtype=L.float64)),
    C("randint", lambda L: L.randint(0, 5, (3,))),
    C("randint_high_size", lambda L: L.randint(5, (2, 2))),
    C("randperm", lambda L: L.randperm(4)),
    C("randn_like", lambda L: L.randn_like(L.ones(2, dtype=L.float64))),
    C("rand_like", lambda L: L.rand_like(L.ones(3))),
]


@pytest.mark.parametrize("fn", RANDOM)
def test_random_factory_metadata(fn, device):
    """Shape, dtype and flags match; values are compared as ranges below, not equal."""
    a, b = run_both(_scenario, fn, values=False, device=device)
    compare(a, b)


def test_random_value_ranges(libs):
    """Both libraries draw from the same distributions (checked loosely: ranges and moments)."""
    for lib in libs:
        lib.manual_seed(0)
        r, n = to_numpy(lib.rand(10000)), to_numpy(lib.randn(10000))
        i, p = to_numpy(lib.randint(2, 5, (1000,))), to_numpy(lib.randperm(6))
        assert 0 <= r.min() and r.max() < 1 and abs(r.mean() - 0.5) < 0.02, lib.__name__
        assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05, lib.__name__
        assert set(np.unique(i)) == {2, 3, 4}, lib.__name__
        assert sorted(p.tolist()) == list(range(6)), lib.__name__


def test_tensor_of_tensor_warns(libs):
    """``tensor(t)`` copies with a UserWarning recommending ``t.detach().clone()``."""
    import warnings

    def scenario(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.tensor(lib.ones(2))
            lib.tensor([lib.ones(()), lib.ones(())])  # a list of 0-dim tensors: no warning
        return [(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w]

    a, b = run_both(scenario)
    assert a == b and len(b) == 1, (a, b)


def test_tensor_copies_and_from_numpy_shares(libs):
    """``tensor`` copies its input; ``from_numpy`` / ``as_tensor`` share the NumPy memory."""
    def scenario(lib):
        arr = np.zeros(3, dtype=np.float32)
        copied, shared, as_t = lib.tensor(arr), lib.from_numpy(arr), lib.as_tensor(arr)
        arr[0] = 5.0
        return [to_numpy(copied), to_numpy(shared), to_numpy(as_t)]

    compare(*run_both(scenario))


def E(id, fn, phrase):
    return pytest.param(fn, phrase, id=id)


ERRORS = [
    E("tensor_int_grad", lambda L: L.tensor([1, 2], requires_grad=True),
      "Only Tensors of floating point and complex dtype can require gradients"),
    E("tensor_bool_grad", lambda L: L.tensor([True], requires_grad=True),
      "Only Tensors of floating point"),
    E("zeros_int_grad", lambda L: L.zeros(2, dtype=L.int64, requires_grad=True),
      "Only Tensors of floating point and complex dtype can require gradients"),
    E("ones_int_grad", lambda L: L.ones(2, dtype=L.int64, requires_grad=True),
      "can require gradients"),
    E("full_int_grad", lambda L: L.full((2,), 3, requires_grad=True), "can require gradients"),
    E("arange_int_grad", lambda L: L.arange(5, requires_grad=True), "can require gradients"),
    E("requires_grad_int", lambda L: L.ones(3, dtype=L.int64).requires_grad_(),
      "only Tensors of floating point dtype can require gradients"),
    E("ragged", lambda L: L.tensor([[1, 2], [3]]), "expected sequence of length 2 at dim 1 "
      "(got 1)"),
    E("ragged_depth", lambda L: L.tensor([[1, 2], 3]), "not a sequence"),
    E("string", lambda L: L.tensor("a"), "invalid data type 'str'"),
    E("none", lambda L: L.tensor(None), "Could not infer dtype of NoneType"),
    E("none_in_list", lambda L: L.tensor([1, None]), "Could not infer dtype of NoneType"),
    E("int_overflow", lambda L: L.tensor(2**63), "Overflow when unpacking long long"),
    E("zeros_negative", lambda L: L.zeros(2, -1), "Dimension size must be non-negative"),
    E("ones_negative", lambda L: L.ones(-1), "Trying to create tensor with negative dimension "
      "-1: [-1]"),
    E("full_negative", lambda L: L.full((-1,), 1.0), "negative dimension -1"),
    E("randn_negative", lambda L: L.randn(-1), "negative dimension -1"),
    E("full_int_size", lambda L: L.full(2, 1.0), "full(): argument 'size' (position 1) must be "
      "tuple of ints, not int"),
    E("arange_zero_step", lambda L: L.arange(0, 5, 0), "step must be nonzero"),
    E("arange_wrong_sign", lambda L: L.arange(0, 5, -1), "upper bound and lower bound "
      "inconsistent with step sign"),
    E("linspace_negative", lambda L: L.linspace(0, 1, -1), "number of steps must be "
      "non-negative"),
    E("eye_negative", lambda L: L.eye(-1), "n must be greater or equal to 0, got -1"),
]


@pytest.mark.parametrize("fn,phrase", ERRORS)
def test_factory_error(fn, phrase, device):
    check_error(lambda L: fn(L), [], phrase, device)
