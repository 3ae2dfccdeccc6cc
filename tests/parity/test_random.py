"""Parity of the random functions and ``Generator``: shapes, dtypes, ``requires_grad``,
graphs and ``_version`` exactly; values only as distributions (NumPy draws them, so they
differ from PyTorch's by design: each library computes the same statistics and the tests
compare the verdicts). Also ``Generator`` seeding and state, reproducibility with one seed,
the errors, and the remaining creation functions (``new_*``, ``empty_like``, ``logspace``,
``eye(n, m)``, ``*_like`` keyword arguments)."""

import numpy as np
import pytest

import minigrad
from minigrad.parity import capture_error, compare, run_both, to_numpy

from ._opcheck import dtype_name

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    yield
    for lib in (minigrad, torch):
        lib.set_default_dtype(lib.float32)


def _meta(t):
    return {"dtype": dtype_name(t.dtype), "shape": tuple(t.shape),
            "requires_grad": t.requires_grad, "leaf": t.is_leaf,
            "node": None if t.grad_fn is None else t.grad_fn.name()}


def C(id, fn):
    return pytest.param(fn, id=id)


MAKERS = [
    C("rand", lambda L, g: L.rand(2, 3, generator=g)),
    C("rand_tuple_f64", lambda L, g: L.rand((2,), dtype=L.float64, generator=g)),
    C("randn_grad", lambda L, g: L.randn(3, requires_grad=True, generator=g)),
    C("randint", lambda L, g: L.randint(0, 5, (2, 2), generator=g)),
    C("randint_high", lambda L, g: L.randint(5, (3,), generator=g)),
    C("randint_float", lambda L, g: L.randint(5, (3,), dtype=L.float32, generator=g)),
    C("randint_float_grad", lambda L, g: L.randint(5, (3,), dtype=L.float32,
                                                   requires_grad=True)),
    C("randperm", lambda L, g: L.randperm(5, generator=g)),
    C("randperm_float_grad", lambda L, g: L.randperm(4, dtype=L.float32, requires_grad=True)),
    C("randperm_empty", lambda L, g: L.randperm(0)),
    C("rand_like", lambda L, g: L.rand_like(L.ones(2, dtype=L.float64))),
    C("randn_like_grad", lambda L, g: L.randn_like(L.ones(2, requires_grad=True))),
    C("randn_like_dtype", lambda L, g: L.randn_like(L.ones(2), dtype=L.float64,
                                                     requires_grad=True)),
    C("randint_like", lambda L, g: L.randint_like(L.ones(2, 2), 5)),
    C("randint_like_low", lambda L, g: L.randint_like(L.zeros(3, dtype=L.int32), 2, 5)),
    C("normal_floats", lambda L, g: L.normal(0.0, 1.0, (2, 3), generator=g)),
    C("normal_floats_grad", lambda L, g: L.normal(0.0, 1.0, size=(2,), requires_grad=True)),
    C("normal_mean_tensor", lambda L, g: L.normal(L.zeros(3, requires_grad=True), 1.0)),
    C("normal_std_tensor", lambda L, g: L.normal(0.0, L.ones(3, requires_grad=True))),
    C("normal_both", lambda L, g: L.normal(L.zeros(2, 3), L.ones(3), generator=g)),
    C("normal_both_grad", lambda L, g: L.normal(L.zeros(2, requires_grad=True),
                                                L.ones(2, requires_grad=True))),
    C("normal_f64", lambda L, g: L.normal(L.zeros(2, dtype=L.float64), 2.0)),
    C("bernoulli", lambda L, g: L.bernoulli(L.full((3,), 0.5), generator=g)),
    C("bernoulli_grad", lambda L, g: L.bernoulli(L.full((3,), 0.5, requires_grad=True))),
    C("bernoulli_p", lambda L, g: L.bernoulli(L.zeros(2, 2, dtype=L.float64), 0.5)),
    C("bernoulli_method", lambda L, g: L.full((2,), 0.3).bernoulli()),
    C("multinomial", lambda L, g: L.multinomial(L.tensor([1.0, 2.0, 3.0]), 2, generator=g)),
    C("multinomial_rows", lambda L, g: L.multinomial(L.rand(4, 3), 5, replacement=True)),
    C("multinomial_method", lambda L, g: L.tensor([1.0, 1.0]).multinomial(2)),
    C("multinomial_zero_weights", lambda L, g: L.multinomial(L.tensor([1.0, 0.0, 0.0]), 2)),
]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("make", MAKERS)
def test_random_metadata(make, default):
    def scenario(lib):
        lib.set_default_dtype(getattr(lib, default))
        return _meta(make(lib, lib.Generator().manual_seed(0)))

    compare(*run_both(scenario))


def _stats(lib):
    """Verdicts on large samples: the same in both libraries when the distributions are."""
    g = lib.Generator().manual_seed(123)
    n = 20000
    u, z = lib.rand(n, generator=g), lib.randn(n, generator=g)
    ri = lib.randint(-3, 4, (n,), generator=g)
    perm = lib.randperm(50, generator=g)
    nm = lib.normal(lib.full((n,), 3.0), 2.0, generator=g)
    be = lib.bernoulli(lib.full((n,), 0.25), generator=g)
    mn = lib.multinomial(lib.tensor([1.0, 0.0, 3.0]), n, replacement=True, generator=g)
    mn_norep = lib.multinomial(lib.tensor([1.0, 5.0, 0.0, 2.0]), 3, generator=g)
    x = lib.empty(n)
    ui = x.uniform_(-2.0, 6.0, generator=g)
    un = to_numpy(ui).copy()
    nn_ = to_numpy(lib.empty(n).normal_(1.0, 0.5, generator=g))
    r5 = to_numpy(lib.empty(n).random_(5, generator=g))
    r25 = to_numpy(lib.empty(n, dtype=lib.int64).random_(2, 5, generator=g))
    rtop = to_numpy(lib.empty(n).random_(generator=g))
    ex = to_numpy(lib.empty(n).exponential_(2.0, generator=g))
    b_ = to_numpy(lib.empty(n).bernoulli_(0.7, generator=g))
    counts = np.bincount(to_numpy(mn), minlength=3) / n
    return {
        "rand": [0 <= to_numpy(u).min(), to_numpy(u).max() < 1,
                 abs(to_numpy(u).mean() - 0.5) < 0.01],
        "randn": [abs(to_numpy(z).mean()) < 0.03, abs(to_numpy(z).std() - 1) < 0.03],
        "randint": sorted(set(to_numpy(ri).tolist())),
        "randperm": sorted(to_numpy(perm).tolist()) == list(range(50)),
        "normal": [abs(to_numpy(nm).mean() - 3) < 0.06, abs(to_numpy(nm).std() - 2) < 0.06],
        "bernoulli": [set(to_numpy(be).tolist()), abs(to_numpy(be).mean() - 0.25) < 0.015],
        "multinomial": [bool(counts[1] == 0), abs(counts[2] - 0.75) < 0.015],
        "multinomial_norep": [len(set(to_numpy(mn_norep).tolist())) == 3,
                              2 not in to_numpy(mn_norep).tolist()],
        "uniform_": [ui is x, -2 <= un.min(), un.max() < 6, abs(un.mean() - 2) < 0.06],
        "normal_": [abs(nn_.mean() - 1) < 0.02, abs(nn_.std() - 0.5) < 0.02],
        "random_to": sorted(set(r5.tolist())), "random_from_to": sorted(set(r25.tolist())),
        "random_top": [rtop.min() >= 0, rtop.max() <= 2**24, rtop.max() > 2**23,
                       bool(np.all(rtop == np.floor(rtop)))],
        "exponential_": [ex.min() >= 0, abs(ex.mean() - 0.5) < 0.02],
        "bernoulli_": [set(b_.tolist()), abs(b_.mean() - 0.7) < 0.015],
    }


def test_distributions(libs):
    compare(*run_both(_stats))


def test_generator_api_and_reproducibility(libs):
    def scenario(lib):
        g = lib.Generator()
        out = {"device": repr(g.device), "initial": g.initial_seed(),
               "returns_self": g.manual_seed(7) is g, "seed7": g.initial_seed()}
        a = lib.randn(5, generator=g)
        g.manual_seed(7)
        b = lib.randn(5, generator=g)
        state = g.get_state()
        c1 = lib.rand(4, generator=g)
        g.set_state(state)
        c2 = lib.rand(4, generator=g)
        new = g.seed()
        h1 = lib.Generator().manual_seed(11)
        h2 = lib.Generator().manual_seed(11)
        p1 = lib.randperm(20, generator=h1)
        p2 = lib.randperm(20, generator=h2)
        lib.manual_seed(3)
        d1 = lib.rand(3)
        returned = lib.manual_seed(3)
        d2 = lib.rand(3)
        x1 = lib.empty(4).normal_(generator=lib.Generator().manual_seed(5))
        x2 = lib.empty(4).normal_(generator=lib.Generator().manual_seed(5))
        out.update({
            "same_seed_same_values": bool((a == b).all()), "state_replay": bool((c1 == c2).all()),
            "set_state_returns": g.set_state(state) is g,
            "state": [dtype_name(state.dtype), state.ndim],
            "seed": [type(new).__name__, new == g.initial_seed()],
            "two_generators": bool((p1 == p2).all()), "global": bool((d1 == d2).all()),
            "manual_seed_returns_default": returned is lib.default_generator,
            "initial_seed": lib.initial_seed(), "inplace": bool((x1 == x2).all()),
            "negative_seed": lib.Generator().manual_seed(-1).initial_seed(),
            "errors": [capture_error(lambda: g.manual_seed(1.5)),
                       capture_error(lambda: g.set_state(lib.zeros(3)))[0],
                       capture_error(lambda: g.set_state(lib.zeros(3, dtype=lib.uint8)))[0],
                       capture_error(lambda: lib.rand(2, generator=1))[0]]})
        return out

    compare(*run_both(scenario))


E = C
RANDOM_ERRORS = [
    E("randint_empty_range", lambda L: L.randint(3, 3, (2,))),
    E("randint_grad_int", lambda L: L.randint(3, (2,), requires_grad=True)),
    E("randperm_negative", lambda L: L.randperm(-1)),
    E("randperm_grad_int", lambda L: L.randperm(3, requires_grad=True)),
    E("rand_int_dtype", lambda L: L.rand(2, dtype=L.int64)),
    E("randn_int_dtype", lambda L: L.randn(2, dtype=L.int64)),
    E("rand_like_int", lambda L: L.rand_like(L.zeros(2, dtype=L.int64))),
    E("normal_negative_std", lambda L: L.normal(0.0, -1.0, (2,))),
    E("normal_tensor_negative_std", lambda L: L.normal(L.zeros(2), -1.0)),
    E("normal_shapes", lambda L: L.normal(L.zeros(2), L.ones(3))),
    E("bernoulli_bad_p", lambda L: L.bernoulli(L.tensor([1.5]))),
    E("bernoulli_int", lambda L: L.bernoulli(L.tensor([1, 0]))),
    E("multinomial_too_many", lambda L: L.multinomial(L.tensor([1.0, 2.0]), 3)),
    E("multinomial_negative", lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 1)),
    E("multinomial_zero_sum", lambda L: L.multinomial(L.tensor([0.0, 0.0]), 1)),
    E("multinomial_int", lambda L: L.multinomial(L.tensor([1, 2]), 1)),
    E("multinomial_3d", lambda L: L.multinomial(L.rand(2, 2, 2), 1)),
    E("multinomial_zero_samples", lambda L: L.multinomial(L.tensor([1.0, 2.0]), 0)),
    E("uniform_bounds", lambda L: L.zeros(2).uniform_(2, 1)),
    E("uniform_int", lambda L: L.zeros(2, dtype=L.int64).uniform_()),
    E("normal_std", lambda L: L.zeros(2).normal_(0, -1)),
    E("bernoulli_p_range", lambda L: L.zeros(2).bernoulli_(1.5)),
    E("random_from_to", lambda L: L.zeros(2).random_(5, 2)),
    E("exponential_lambda", lambda L: L.zeros(2).exponential_(0.0)),
    E("uniform_leaf", lambda L: L.zeros(2, requires_grad=True).uniform_()),
    E("normal_leaf", lambda L: L.zeros(2, requires_grad=True).normal_()),
    E("random_leaf", lambda L: L.zeros(2, requires_grad=True).random_()),
    E("bernoulli_leaf", lambda L: L.zeros(2, requires_grad=True).bernoulli_()),
    E("view_of_leaf", lambda L: L.zeros(2, 2, requires_grad=True)[0].uniform_()),
]


@pytest.mark.parametrize("fn", RANDOM_ERRORS)
def test_random_errors(fn):
    def scenario(lib):
        err = capture_error(lambda: fn(lib))
        return err[0], err[1].split(" (Could")[0].split(", but expected")[0].strip()

    a, b = run_both(scenario)
    compare(a, (b[0], b[1].replace("torch.", "minigrad.")))


INPLACE = [
    C("uniform_", lambda h: h.uniform_(-1, 1)), C("normal_", lambda h: h.normal_(2.0, 0.5)),
    C("bernoulli_", lambda h: h.bernoulli_()), C("bernoulli_p", lambda h: h.bernoulli_(0.2)),
    C("random_", lambda h: h.random_()), C("random_to", lambda h: h.random_(7)),
    C("random_from_to", lambda h: h.random_(-2, 7)),
    C("exponential_", lambda h: h.exponential_()),
    C("fill_", lambda h: h.fill_(3.0)), C("zero_", lambda h: h.zero_()),
]


@pytest.mark.parametrize("fill", INPLACE)
def test_inplace_random_graph_and_version(fill):
    def scenario(lib):
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        h = x * 2
        v0 = h._version
        out = fill(h)
        leaf = lib.zeros(3)
        fill(leaf)
        fill(leaf)
        view_base = x * 1
        fill(view_base[0])
        (out * 3).sum().backward()
        return {"same": out is h, "versions": [v0, h._version, leaf._version,
                                               view_base._version],
                "node": h.grad_fn.name(),
                "next": [None if f is None else f.name() for f, _ in h.grad_fn.next_functions],
                "base_node": view_base.grad_fn.name(), "grad": to_numpy(x.grad),
                "leaf": [leaf.is_leaf, leaf.requires_grad], "dtype": dtype_name(h.dtype)}

    compare(*run_both(scenario))


def test_bernoulli_tensor_p_graph(libs):
    def scenario(lib):
        x = lib.ones(3, requires_grad=True)
        p = lib.full((3,), 0.5, requires_grad=True)
        h = x * 1
        h.bernoulli_(p)
        h.sum().backward()
        return {"node": h.grad_fn.name(), "grads": [to_numpy(x.grad), to_numpy(p.grad)],
                "next": [None if f is None else f.name() for f, _ in h.grad_fn.next_functions]}

    compare(*run_both(scenario))


CREATION = [
    C("new_zeros", lambda L: L.ones(2, dtype=L.float64).new_zeros(2, 3)),
    C("new_zeros_tuple", lambda L: L.ones(2).new_zeros((2, 3))),
    C("new_zeros_dtype", lambda L: L.ones(2).new_zeros(2, dtype=L.int64)),
    C("new_zeros_grad", lambda L: L.ones(2).new_zeros(2, requires_grad=True)),
    C("new_ones_list", lambda L: L.tensor([1, 2]).new_ones([2])),
    C("new_empty", lambda L: L.ones(2).new_empty(0)),
    C("new_full", lambda L: L.ones(2, dtype=L.float64).new_full((2,), 3)),
    C("new_full_int", lambda L: L.tensor([1]).new_full([2], 2.5)),
    C("new_tensor_ints", lambda L: L.ones(2).new_tensor([1, 2])),
    C("new_tensor_int_self", lambda L: L.tensor([1]).new_tensor([1.5])),
    C("new_tensor_dtype", lambda L: L.ones(2).new_tensor([1, 2], dtype=L.int64)),
    C("new_tensor_grad", lambda L: L.ones(2).new_tensor([1.0], requires_grad=True)),
    C("new_of_grad_tensor", lambda L: L.ones(2, requires_grad=True).new_zeros(2)),
    C("empty_like", lambda L: L.empty_like(L.ones(2, 3, dtype=L.float64)).zero_()),
    C("empty_like_grad", lambda L: ("NO_VALUES", L.empty_like(L.ones(2), requires_grad=True))),
    C("zeros_like_of_grad", lambda L: L.zeros_like(L.ones(2, requires_grad=True))),
    C("zeros_like_kwargs", lambda L: L.zeros_like(L.ones(2), dtype=L.int64,
                                                  memory_format=L.preserve_format)),
    C("ones_like_grad", lambda L: L.ones_like(L.ones(2), requires_grad=True)),
    C("full_like_int_input", lambda L: L.full_like(L.tensor([1, 2]), 2.7)),
    C("full_like_dtype", lambda L: L.full_like(L.tensor([1, 2]), 2.5, dtype=L.float64)),
    C("logspace", lambda L: L.logspace(0, 2, 3)),
    C("logspace_base", lambda L: L.logspace(-1, 3, 5, base=2)),
    C("logspace_f64", lambda L: L.logspace(0, 1, 4, dtype=L.float64)),
    C("logspace_grad", lambda L: L.logspace(0, 1, 2, requires_grad=True)),
    C("linspace_one", lambda L: L.linspace(2, 5, 1)),
    C("eye_rect", lambda L: L.eye(2, 3)),
    C("eye_tall_int", lambda L: L.eye(3, 2, dtype=L.int64)),
    C("python_float_dtype", lambda L: L.zeros(2, dtype=float)),
    C("python_int_dtype", lambda L: L.ones(2, dtype=int)),
]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("make", CREATION)
def test_creation(make, default):
    def scenario(lib):
        lib.set_default_dtype(getattr(lib, default))
        t = make(lib)
        if isinstance(t, tuple):  # (uninitialised memory in torch: no values to compare)
            return _meta(t[1])
        return {**_meta(t), "value": to_numpy(t)}

    compare(*run_both(scenario))


def test_new_tensor_of_tensor_warns(libs):
    import warnings

    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lib.ones(2).new_tensor(lib.tensor([1, 2]))
        return dtype_name(t.dtype), [str(w.message).replace("torch.", "minigrad.")
                                     for w in caught]

    a, b = run_both(scenario)
    compare(a[0], b[0])
    assert len(a[1]) == len(b[1]) == 1 and a[1][0].split(",")[0] == b[1][0].split(",")[0]


LAYOUTS = [
    C("zeros_like", lambda L, x: L.zeros_like(x)),
    C("ones_like", lambda L, x: L.ones_like(x, dtype=L.float64)),
    C("full_like", lambda L, x: L.full_like(x, 2)),
    C("empty_like", lambda L, x: L.empty_like(x)),
    C("rand_like", lambda L, x: L.rand_like(x)),
    C("randn_like", lambda L, x: L.randn_like(x)),
    C("randint_like", lambda L, x: L.randint_like(x, 3)),
    C("contiguous_format", lambda L, x: L.zeros_like(x, memory_format=L.contiguous_format)),
    C("new_zeros", lambda L, x: x.new_zeros(x.shape)),
]


@pytest.mark.parametrize("source", ["transposed", "strided", "contiguous"])
@pytest.mark.parametrize("make", LAYOUTS)
def test_like_layout(make, source):
    def scenario(lib):
        base = lib.ones(4, 6)
        x = {"transposed": base.t(), "strided": base[::2], "contiguous": base}[source]
        out = make(lib, x)
        return {"stride": out.stride(), "shape": tuple(out.shape), "dtype": dtype_name(out.dtype)}

    compare(*run_both(scenario))
