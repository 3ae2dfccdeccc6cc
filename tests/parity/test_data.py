"""Parity of ``utils.data``: datasets (indexing, slicing, errors), ``default_collate`` /
``default_convert`` (tensors, NumPy, numbers, strings, tuples, dicts, namedtuples), the
``DataLoader`` (batches, ``len``, options and their ``ValueError`` s, attributes) and the
samplers. Random orders cannot equal PyTorch's (NumPy's generator): for them the tests check
the semantics, in each library, and that a seed reproduces minigrad's order."""

import collections
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.parity import capture_error, compare, run_both, to_numpy

from ._opcheck import dtype_name

torch = pytest.importorskip("torch")

X = np.arange(20.0, dtype=np.float32).reshape(10, 2)
Y = np.arange(10) % 3
Point = collections.namedtuple("Point", ["x", "y"])


def trace(obj):
    """Plain data of a (nested) batch: tensors as dtype + values, containers by type name."""
    if isinstance(obj, (minigrad.Tensor, torch.Tensor)):
        return ("tensor", dtype_name(obj.dtype), to_numpy(obj))
    if isinstance(obj, dict):
        return ("dict", {k: trace(v) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, [trace(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [trace(v) for v in obj])
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj)
    return obj


def _data(lib):
    return lib.utils.data


def _dataset(lib):
    return _data(lib).TensorDataset(lib.tensor(X), lib.tensor(Y))


def test_tensor_dataset_indexing(libs):
    def scenario(lib):
        d = _dataset(lib)
        return {"len": len(d), "item": trace(d[3]), "neg": trace(d[-1]),
                "slice": trace(d[2:5]), "list": trace(d[[0, 4]]),
                "tensors": len(d.tensors), "out_of_range": capture_error(lambda: d[10]),
                "mismatch": capture_error(lambda: _data(lib).TensorDataset(
                    lib.tensor(X), lib.tensor(Y[:4])))}

    compare(*run_both(scenario))


class Squares:
    """A map-style dataset of ``(i, i**2)`` in both libraries."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i, i * i

    def __len__(self):
        return self.n


def test_concat_and_subset(libs):
    def scenario(lib):
        data = _data(lib)
        d = _dataset(lib)
        c = data.ConcatDataset([d, Squares(lib, 3)])
        plus = d + d
        s = data.Subset(d, [4, 0, 7])
        return {"len": len(c), "cum": c.cumulative_sizes, "first": trace(c[0]),
                "second": trace(c[11]), "neg": trace(c[-1]), "plus": len(plus),
                "neg_err": capture_error(lambda: c[-14]),
                "past": capture_error(lambda: c[13]),
                "empty": capture_error(lambda: data.ConcatDataset([])),
                "subset": [len(s), trace(s[1]), trace(s[[0, 2]]), s.indices]}

    compare(*run_both(scenario))


def test_base_classes(libs):
    def scenario(lib):
        data = _data(lib)

        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        return {"getitem": capture_error(lambda: data.Dataset()[0]),
                "len": capture_error(lambda: len(data.Dataset()))[0],
                "concat_iterable": capture_error(lambda: data.ConcatDataset([Stream()])),
                "iter": list(Stream())}

    compare(*run_both(scenario))


def _batches(lib):
    """Samples of every kind default_collate handles."""
    t = lib.tensor
    return {
        "tensors": [t([1.0, 2.0]), t([3.0, 4.0])],
        "int_tensors": [t(1), t(2)],
        "numpy": [np.array([1.0, 2.0]), np.array([3.0, 4.0])],
        "numpy_int32": [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        "numpy_scalars": [np.float64(1.5), np.float64(2.5)],
        "numpy_int_scalars": [np.int32(1), np.int32(2)],
        "floats": [1.5, 2.5], "ints": [1, 2], "bools": [True, False], "strings": ["a", "b"],
        "tuples": [(t([1.0]), 0, "a"), (t([2.0]), 1, "b")],
        "lists": [[1, 2.0], [3, 4.0]],
        "dicts": [{"x": t([1.0]), "y": 1}, {"x": t([2.0]), "y": 2}],
        "nested": [{"a": (1, [2.0, np.array([3])])}, {"a": (4, [5.0, np.array([6])])}],
        "namedtuples": [Point(t([1.0]), 1), Point(t([2.0]), 2)],
        "ordered": [collections.OrderedDict(b=1, a=2.0), collections.OrderedDict(b=3, a=4.0)],
    }


@pytest.mark.parametrize("kind", list(_batches(minigrad)))
def test_default_collate(kind):
    def scenario(lib):
        batch = _batches(lib)[kind]
        data = _data(lib)
        out = data.default_collate(batch)
        return {"collated": trace(out), "type": type(out).__name__,
                "convert": trace(data.default_convert(batch[0]))}

    compare(*run_both(scenario))


COLLATE_ERRORS = [
    pytest.param(lambda L: [object(), object()], id="object"),
    pytest.param(lambda L: [np.array(["a"]), np.array(["b"])], id="string_array"),
    pytest.param(lambda L: [[1, 2], [3]], id="ragged"),
    pytest.param(lambda L: [L.ones(2), L.ones(3)], id="shape_mismatch"),
    pytest.param(lambda L: [None, None], id="none"),
]


@pytest.mark.parametrize("make", COLLATE_ERRORS)
def test_default_collate_errors(make):
    def scenario(lib):
        err = capture_error(lambda: _data(lib).default_collate(make(lib)))
        return err[0], err[1].replace("torch.", "minigrad.").split(" at entry")[0][:60]

    a, b = run_both(scenario)
    assert a[0] == b[0], (a, b)
    if "found" in b[1] or "equal size" in b[1]:
        assert a[1].split(";")[0] == b[1].split(";")[0]


LOADERS = [
    pytest.param({"batch_size": 3}, id="batch3"),
    pytest.param({"batch_size": 3, "drop_last": True}, id="drop_last"),
    pytest.param({"batch_size": 1}, id="batch1"),
    pytest.param({"batch_size": 20}, id="batch_all"),
    pytest.param({"batch_size": None}, id="no_batching"),
    pytest.param({"batch_size": 4, "SAMPLER": [9, 1, 4, 4]}, id="sampler_list"),
    pytest.param({"BATCH_SAMPLER": [[0, 1], [5], [2, 3, 4]]}, id="batch_sampler_list"),
    pytest.param({"batch_size": 4, "SEQUENTIAL": True}, id="sequential_sampler"),
    pytest.param({"BATCH_SAMPLER_OBJ": (3, False)}, id="batch_sampler_obj"),
    pytest.param({"BATCH_SAMPLER_OBJ": (3, True)}, id="batch_sampler_drop"),
    pytest.param({"batch_size": 4, "collate_fn": "PAIRS"}, id="collate_fn"),
    pytest.param({"batch_size": 4, "shuffle": False}, id="shuffle_false"),
    pytest.param({"batch_size": 4, "pin_memory": True}, id="pin_memory",
                 marks=pytest.mark.filterwarnings("ignore:.pin_memory. argument")),
]


def _loader(lib, opts, dataset=None):
    data = _data(lib)
    d = _dataset(lib) if dataset is None else dataset
    kw = {k: v for k, v in opts.items() if k.isupper() is False}
    if "SAMPLER" in opts:
        kw["sampler"] = opts["SAMPLER"]
    if "BATCH_SAMPLER" in opts:
        kw["batch_sampler"] = opts["BATCH_SAMPLER"]
    if "SEQUENTIAL" in opts:
        kw["sampler"] = data.SequentialSampler(d)
    if "BATCH_SAMPLER_OBJ" in opts:
        size, drop = opts["BATCH_SAMPLER_OBJ"]
        kw["batch_sampler"] = data.BatchSampler(data.SequentialSampler(d), size, drop)
    if kw.get("collate_fn") == "PAIRS":
        kw["collate_fn"] = lambda batch: [len(batch), trace(batch[0])]
    return data.DataLoader(d, **kw)


@pytest.mark.parametrize("opts", LOADERS)
def test_dataloader_batches(opts):
    def scenario(lib):
        loader = _loader(lib, opts)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = [trace(b) for b in loader]
        return {"len": len(loader), "batches": batches,
                "warnings": [str(w.message) for w in caught],
                "again": len(list(loader)), "batch_size": loader.batch_size,
                "drop_last": loader.drop_last, "sampler": type(loader.sampler).__name__,
                "batch_sampler": type(loader.batch_sampler).__name__,
                "collate": getattr(loader.collate_fn, "__name__", "lambda")}

    compare(*run_both(scenario))


def test_dataloader_iterable_dataset(libs):
    def scenario(lib):
        data = _data(lib)

        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter([np.float32(i) for i in range(7)])

        class Sized(Stream):
            def __len__(self):
                return 7

        return {"batched": [trace(b) for b in data.DataLoader(Stream(), batch_size=3)],
                "dropped": [trace(b) for b in data.DataLoader(Stream(), batch_size=3,
                                                              drop_last=True)],
                "unbatched": [trace(b) for b in data.DataLoader(Stream(), batch_size=None)],
                "len_error": capture_error(lambda: len(data.DataLoader(Stream())))[0],
                "len": [len(data.DataLoader(Sized(), batch_size=3)),
                        len(data.DataLoader(Sized(), batch_size=3, drop_last=True))]}

    compare(*run_both(scenario))


LOADER_ERRORS = [
    pytest.param({"batch_sampler": [[0]], "batch_size": 2}, id="batch_sampler_batch_size"),
    pytest.param({"batch_sampler": [[0]], "shuffle": True}, id="batch_sampler_shuffle"),
    pytest.param({"batch_sampler": [[0]], "sampler": [0]}, id="batch_sampler_sampler"),
    pytest.param({"batch_sampler": [[0]], "drop_last": True}, id="batch_sampler_drop_last"),
    pytest.param({"sampler": [0], "shuffle": True}, id="sampler_shuffle"),
    pytest.param({"batch_size": None, "drop_last": True}, id="none_drop_last"),
    pytest.param({"num_workers": -1}, id="negative_workers"),
    pytest.param({"timeout": -1}, id="negative_timeout"),
    pytest.param({"prefetch_factor": 2}, id="prefetch_without_workers"),
    pytest.param({"persistent_workers": True}, id="persistent_without_workers"),
    pytest.param({"batch_size": 0}, id="zero_batch"),
    pytest.param({"ITERABLE": True, "shuffle": True}, id="iterable_shuffle"),
    pytest.param({"ITERABLE": True, "sampler": [0]}, id="iterable_sampler"),
    pytest.param({"ITERABLE": True, "batch_sampler": [[0]]}, id="iterable_batch_sampler"),
]


@pytest.mark.parametrize("opts", LOADER_ERRORS)
def test_dataloader_option_errors(opts):
    def scenario(lib):
        data = _data(lib)

        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        kw = {k: v for k, v in opts.items() if k != "ITERABLE"}
        d = Stream() if "ITERABLE" in opts else _dataset(lib)
        return capture_error(lambda: data.DataLoader(d, **kw))

    compare(*run_both(scenario))


def test_dataloader_attributes_frozen(libs):
    def scenario(lib):
        loader = _data(lib).DataLoader(_dataset(lib), batch_size=2)
        errs = [capture_error(lambda n=n: setattr(loader, n, 3))
                for n in ("batch_size", "sampler", "batch_sampler", "drop_last", "dataset")]
        loader.collate_fn = loader.collate_fn  # (allowed)
        return errs

    compare(*run_both(scenario))


def test_num_workers_runs_in_main_process_with_one_note():
    import minigrad.utils.data.dataloader as dl

    dl._noted_workers = False
    data = minigrad.utils.data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = [trace(b) for b in data.DataLoader(_dataset(minigrad), batch_size=4,
                                                    num_workers=2)]
        data.DataLoader(_dataset(minigrad), batch_size=4, num_workers=3, prefetch_factor=2,
                        persistent_workers=True)
    notes = [w for w in caught if "main process" in str(w.message)]
    assert len(notes) == 1 and "num_workers=2" in str(notes[0].message)
    expected = [trace(b) for b in torch.utils.data.DataLoader(_dataset(torch), batch_size=4)]
    compare(first, expected)


def _is_permutation(order, n):
    return sorted(order) == list(range(n))


def test_shuffle_semantics_and_generator(libs):
    """Each library: a shuffled pass visits every index once, in batches of the same shapes
    as PyTorch's; a seeded generator reproduces the order; two passes differ."""
    def scenario(lib):
        data = _data(lib)
        d = data.TensorDataset(lib.arange(10))
        g = lib.Generator().manual_seed(0)
        loader = data.DataLoader(d, batch_size=4, shuffle=True, generator=g)
        first = [b[0].tolist() for b in loader]
        second = [b[0].tolist() for b in loader]
        g.manual_seed(0)
        replay = [b[0].tolist() for b in loader]
        lib.manual_seed(5)
        a = [b[0].tolist() for b in data.DataLoader(d, batch_size=4, shuffle=True)]
        lib.manual_seed(5)
        b = [b[0].tolist() for b in data.DataLoader(d, batch_size=4, shuffle=True)]
        flat = sum(first, [])
        return {"shapes": [len(x) for x in first], "perm": _is_permutation(flat, 10),
                "replay": replay == first, "differs": second != first,
                "global_seed": a == b, "sampler": type(loader.sampler).__name__,
                "gen_kept": loader.generator is g}

    compare(*run_both(scenario))


def test_random_sampler(libs):
    def scenario(lib):
        data = _data(lib)
        g = lib.Generator().manual_seed(1)
        plain = list(data.RandomSampler(range(6), generator=g))
        more = list(data.RandomSampler(range(3), num_samples=7, generator=g))
        fewer = list(data.RandomSampler(range(6), num_samples=4, generator=g))
        repl = list(data.RandomSampler(range(3), replacement=True, num_samples=50, generator=g))
        return {"perm": _is_permutation(plain, 6), "types": {type(i).__name__ for i in plain},
                "more": sorted(more)[:6] == [0, 0, 1, 1, 2, 2] and len(more) == 7,
                "fewer": len(set(fewer)) == 4,
                "repl": [len(repl), set(repl) <= {0, 1, 2}, len(set(repl)) == 3],
                "len": [len(data.RandomSampler(range(6))),
                        len(data.RandomSampler(range(3), num_samples=7))],
                "errors": [capture_error(lambda: data.RandomSampler(range(3), replacement=1)),
                           capture_error(lambda: data.RandomSampler(range(3), num_samples=0)),
                           capture_error(lambda: data.RandomSampler(range(3),
                                                                    num_samples=2.0))]}

    compare(*run_both(scenario))


def test_other_samplers(libs):
    def scenario(lib):
        data = _data(lib)
        g = lib.Generator().manual_seed(2)
        sub = list(data.SubsetRandomSampler([5, 7, 9], generator=g))
        w = list(data.WeightedRandomSampler([0.0, 1.0, 0.0], 5, generator=g))
        w_norep = list(data.WeightedRandomSampler([1.0, 1.0, 0.0, 2.0], 3, replacement=False,
                                                  generator=g))
        many = list(data.WeightedRandomSampler([1.0, 3.0], 4000, generator=g))
        return {"sub": sorted(sub), "sub_len": len(data.SubsetRandomSampler([5, 7])),
                "weighted": w, "types": {type(i).__name__ for i in w + sub},
                "norep": sorted(w_norep), "ratio": abs(sum(many) / 4000 - 0.75) < 0.04,
                "seq": list(data.SequentialSampler("abc")),
                "batch": list(data.BatchSampler(range(5), 2, False)),
                "batch_drop": list(data.BatchSampler(range(5), 2, True)),
                "batch_len": [len(data.BatchSampler(range(5), 2, False)),
                              len(data.BatchSampler(range(5), 2, True))],
                "errors": [capture_error(lambda: data.BatchSampler(range(3), 0, False)),
                           capture_error(lambda: data.BatchSampler(range(3), True, False)),
                           capture_error(lambda: data.BatchSampler(range(3), 2, 1)),
                           capture_error(lambda: data.WeightedRandomSampler([[1.0, 2.0]], 2)),
                           capture_error(lambda: data.WeightedRandomSampler([1.0], 0)),
                           capture_error(lambda: data.WeightedRandomSampler([1.0], 2,
                                                                            replacement=0))]}

    compare(*run_both(scenario))


SPLITS = [
    pytest.param(10, [3, 7], id="lengths"), pytest.param(10, [0.3, 0.7], id="fractions"),
    pytest.param(10, [0.33, 0.33, 0.34], id="remainder"),
    pytest.param(11, [0.5, 0.5], id="odd"), pytest.param(2, [0.1, 0.9], id="small"),
    pytest.param(3, [0.0, 1.0], id="empty_split"),
]


@pytest.mark.parametrize("n,lengths", SPLITS)
def test_random_split(n, lengths):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = _data(lib).random_split(range(n), lengths,
                                            generator=lib.Generator().manual_seed(0))
            again = _data(lib).random_split(range(n), lengths,
                                            generator=lib.Generator().manual_seed(0))
        flat = [i for p in parts for i in p]
        return {"lengths": [len(p) for p in parts], "perm": _is_permutation(flat, n),
                "types": [type(p).__name__ for p in parts],
                "replay": [p.indices for p in parts] == [p.indices for p in again],
                "warnings": [str(w.message) for w in caught]}

    compare(*run_both(scenario))


@pytest.mark.parametrize("lengths", [[3, 6], [0.3, 0.6], [0.3, -0.6, 1.3]])
def test_random_split_errors(lengths):
    compare(*run_both(lambda lib: capture_error(
        lambda: _data(lib).random_split(range(10), lengths))))


def test_chain_dataset_and_worker_info(libs):
    def scenario(lib):
        data = _data(lib)

        class Stream(data.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                info = data.get_worker_info()  # None in the main process: yield everything
                return iter(range(self.n) if info is None else [])

            def __len__(self):
                return self.n

        chain = data.ChainDataset([Stream(2), Stream(3)])
        return {"items": list(chain), "len": len(chain), "info": data.get_worker_info(),
                "batches": [trace(b) for b in data.DataLoader(chain, batch_size=2)],
                "bad": capture_error(lambda: list(data.ChainDataset([_dataset(lib)])))}

    compare(*run_both(scenario))


def test_dataloader_iterator(libs):
    def scenario(lib):
        loader = _data(lib).DataLoader(_dataset(lib), batch_size=4)
        it = iter(loader)
        first = next(it)
        rest = list(it)
        return {"type": type(it).__name__, "len": len(iter(loader)), "first": trace(first),
                "rest": len(rest), "exhausted": capture_error(lambda: next(it))[0],
                "self_iter": iter(it) is it}

    compare(*run_both(scenario))
