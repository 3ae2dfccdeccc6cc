"""More ops for the fuzzer's op pool: cumulative ops, sorting, indexing (gather, scatter,
index_select), flips and rolls, triangles and diagonals, einsum, normalisations, embeddings
and a few more activations and losses.

``OPS_MORE`` (name -> ``fn(runner, params, *tensors)``) joins ``program.OPS``; ``MORE``
(family -> op names) joins the families of ``generate`` (by default; ``MINIGRAD_FUZZ_OPS=base``
leaves them out, see ``generate.OP_POOL``); :class:`MoreOpsGen` draws their
arguments (a mixin of ``generate.Gen``: ``op_<name>`` returns ``(ids, params)``). Params are
plain data (a printed program pastes into ``test_regressions.py``): index tensors are nested
lists, infinity is the string ``"inf"``.

Ties: PyTorch's ``topk`` picks among equal values in an order of its selection algorithm, not
the input order, so ``topk`` draws only tensors whose values along the dim are distinct
(``sort``, stable in both libraries, and ``median`` take any).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

MORE = {
    "unary": ["expm1", "log1p", "atan", "sinh", "hardtanh", "elu", "mish"],
    "reduce": ["norm", "cumsum", "cumprod", "logcumsumexp", "prod", "sort", "topk",
               "median_dim", "median_all"],
    "views": ["flip", "roll", "tril", "triu", "diagonal", "movedim", "index_select", "gather",
              "scatter", "scatter_add"],
    "linalg": ["einsum", "outer", "trace"],
    "nn": ["layer_norm", "group_norm", "batch_norm", "embedding", "normalize",
           "smooth_l1_loss", "huber_loss", "bce_logits", "kl_div", "cosine_similarity"],
}


def _tup(x):
    return tuple(x) if isinstance(x, list) else x


def _p(v):
    return float("inf") if v == "inf" else v


def _ints(R, data):
    return R.tensor(np.asarray(data, dtype=np.int64))


def _norm(R, p, x):
    if p["dim"] is None:
        return x.norm(_p(p["p"]))
    return x.norm(_p(p["p"]), dim=_tup(p["dim"]), keepdim=p["keepdim"])


def _prod(R, p, x):
    return x.prod() if p["dim"] is None else x.prod(p["dim"], keepdim=p["keepdim"])


def _scatter(R, p, x, *src):
    index = _ints(R, p["index"])
    if not src:
        return x.scatter(p["dim"], index, p["value"])
    return x.scatter(p["dim"], index, src[0])


def _layer_norm(R, p, x, *wb):
    w, b = (list(wb) + [None, None])[:2]
    return R.F.layer_norm(x, _tup(p["shape"]), w, b)


def _group_norm(R, p, x, *wb):
    w, b = (list(wb) + [None, None])[:2]
    return R.F.group_norm(x, p["groups"], w, b)


def _batch_norm(R, p, x, *wb):
    w, b = (list(wb) + [None, None])[:2]
    return R.F.batch_norm(x, None, None, w, b, training=True)


OPS_MORE = {
    "expm1": lambda R, p, x: x.expm1(),
    "log1p": lambda R, p, x: x.log1p(),
    "atan": lambda R, p, x: x.atan(),
    "sinh": lambda R, p, x: x.sinh(),
    "hardtanh": lambda R, p, x: R.F.hardtanh(x, p["min"], p["max"]),
    "elu": lambda R, p, x: R.F.elu(x, p["alpha"]),
    "mish": lambda R, p, x: R.F.mish(x),
    "norm": _norm,
    "cumsum": lambda R, p, x: x.cumsum(p["dim"]),
    "cumprod": lambda R, p, x: x.cumprod(p["dim"]),
    "logcumsumexp": lambda R, p, x: x.logcumsumexp(p["dim"]),
    "prod": _prod,
    "sort": lambda R, p, x: tuple(x.sort(p["dim"], descending=p["descending"])),
    "topk": lambda R, p, x: tuple(x.topk(p["k"], p["dim"], largest=p["largest"])),
    "median_dim": lambda R, p, x: tuple(x.median(p["dim"], keepdim=p["keepdim"])),
    "median_all": lambda R, p, x: x.median(),
    "flip": lambda R, p, x: x.flip(_tup(p["dims"])),
    "roll": lambda R, p, x: x.roll(_tup(p["shifts"]), _tup(p["dims"])),
    "tril": lambda R, p, x: x.tril(p["diagonal"]),
    "triu": lambda R, p, x: x.triu(p["diagonal"]),
    "diagonal": lambda R, p, x: x.diagonal(p["offset"], p["dim1"], p["dim2"]),
    "movedim": lambda R, p, x: x.movedim(p["source"], p["destination"]),
    "index_select": lambda R, p, x: x.index_select(p["dim"], _ints(R, p["index"])),
    "gather": lambda R, p, x: x.gather(p["dim"], _ints(R, p["index"])),
    "scatter": _scatter,
    "scatter_add": lambda R, p, x, src: x.scatter_add(p["dim"], _ints(R, p["index"]), src),
    "einsum": lambda R, p, *xs: R.L.einsum(p["equation"], *xs),
    "outer": lambda R, p, x, y: R.L.outer(x, y),
    "trace": lambda R, p, x: x.trace(),
    "layer_norm": _layer_norm,
    "group_norm": _group_norm,
    "batch_norm": _batch_norm,
    "embedding": lambda R, p, w: R.F.embedding(_ints(R, p["index"]), w,
                                               padding_idx=p["padding_idx"]),
    "normalize": lambda R, p, x: R.F.normalize(x, _p(p["p"]), p["dim"]),
    "smooth_l1_loss": lambda R, p, x, y: R.F.smooth_l1_loss(x, y, reduction=p["reduction"],
                                                            beta=p["beta"]),
    "huber_loss": lambda R, p, x, y: R.F.huber_loss(x, y, reduction=p["reduction"],
                                                    delta=p["delta"]),
    "bce_logits": lambda R, p, x, y: R.F.binary_cross_entropy_with_logits(
        x, y, reduction=p["reduction"]),
    "kl_div": lambda R, p, x, y: R.F.kl_div(x, y, reduction=p["reduction"],
                                            log_target=p["log_target"]),
    "cosine_similarity": lambda R, p, x, y: R.F.cosine_similarity(x, y, p["dim"]),
}

# einsum equations by the shapes of their operands (letters name sizes)
EINSUM = [("ij,jk->ik", ["ij", "jk"]), ("i,i->", ["i", "i"]), ("ij->ji", ["ij"]),
          ("bij,bjk->bik", ["bij", "bjk"]), ("ii->i", ["ii"]), ("ij->", ["ij"]),
          ("i,j->ij", ["i", "j"]), ("ij,ij->i", ["ij", "ij"]), ("...i,i->...", ["ai", "i"])]
REDUCTIONS = ["mean", "sum", "none"]


def _distinct_along(t, dim: int) -> bool:
    """Whether the values of ``t`` along ``dim`` are distinct in every line (no ties)."""
    if t.ndim == 0 or t.numel() == 0:
        return True
    a = np.moveaxis(t.detach().numpy(), dim, -1).reshape(-1, t.shape[dim])
    s = np.sort(a, axis=-1)
    return not np.isnan(a).any() and bool((np.diff(s, axis=-1) != 0).all())


def _groups_spread(t, groups=None) -> bool:
    """Whether every normalisation group of ``t`` has a spread clear of 0: group_norm's
    (N x ``groups``) or, with ``groups`` None, batch_norm's (one per channel). Not needed in
    float64, nor for tensors the op refuses anyway, nor for empty groups. PyTorch's CPU
    kernels normalise float32 as ``x * scale + shift`` (``scale = rstd * weight``, ``shift =
    -mean * scale + bias``): in a group of equal values (one element, or ties) rstd is
    1/sqrt(eps) ~ 316 and the cancellation leaves a few 1e-6 to 1e-5 where minigrad, which
    normalises in float64, gives 0; a group's std at least 1% of its largest magnitude
    (or of 1) keeps that rounding inside the float32 tolerance."""
    try:
        if str(t.dtype).split(".")[-1] != "float32" or t.ndim < 2 or t.numel() == 0:
            return True  # (float64, or refused: nothing to avoid)
        a = t.detach().double().numpy()
        if groups is None:
            a = np.moveaxis(a, 1, 0).reshape(a.shape[1], -1)
        elif a.shape[1] % groups:
            return True
        else:
            a = a.reshape(a.shape[0] * groups, -1)
        if a.shape[-1] == 0:
            return True
        scale = np.maximum(1.0, np.abs(a).max(axis=-1))
        return bool((a.std(axis=-1) >= 0.01 * scale).all())
    except Exception:  # noqa: BLE001 - an argument the op refuses: any will do
        return True


class MoreOpsGen:
    """Argument draws of the ops in ``MORE`` (a mixin of ``generate.Gen``)."""

    def _size_at(self, x, d) -> int:
        """``x.shape[d]`` for a dim in range, else 1 (the op is to raise)."""
        return x.shape[d % x.ndim] if x.ndim and -x.ndim <= d < x.ndim else 1

    def _index_data(self, shape, hi: int, distinct_dim=None) -> list:
        """A nested list of int64 indices in ``[0, hi)`` of ``shape`` (rarely ``hi``, out of
        range); with ``distinct_dim``, no index repeats along that dim (needs
        ``shape[distinct_dim] <= hi``)."""
        rng = np.random.default_rng(self.d(st.integers(0, 2 ** 16)))
        if hi <= 0:
            return np.zeros(shape, dtype=np.int64).tolist()
        if distinct_dim is None:
            arr = rng.integers(0, hi, size=shape)
        else:
            moved = list(shape)
            m = moved.pop(distinct_dim)
            lines = [rng.permutation(hi)[:m] for _ in range(int(np.prod(moved, dtype=int)))]
            arr = np.moveaxis(np.asarray(lines, dtype=np.int64).reshape(*moved, m), -1,
                              distinct_dim)
        if self.chance(30) and arr.size:
            arr.flat[0] = hi
        return arr.tolist()

    # unary
    def op_hardtanh(self):
        lo, hi = self.d(st.sampled_from([(-1.0, 1.0), (-0.5, 2.0), (0.0, 0.5)]))
        return self.unary_ids(), {"min": lo, "max": hi}

    def op_elu(self):
        return self.unary_ids(), {"alpha": self.d(st.sampled_from([1.0, 0.5, 2.0]))}

    # reductions and scans
    def op_norm(self):
        ids, p = self.reduce_args()
        p["p"] = self.d(st.sampled_from([2, 1, "inf", 3]))
        return ids, p

    def op_cumsum(self):
        return self.one_dim(keep=False)

    op_cumprod = op_logcumsumexp = op_cumsum

    def op_prod(self):
        ids, p = self.one_dim()
        if self.chance(3):
            p["dim"] = None
        return ids, p

    def op_sort(self):
        ids, p = self.one_dim(keep=False)
        p.update(descending=self.d(st.booleans()), n_out=2)
        return ids, p

    def op_topk(self):
        d = self.d(st.integers(-1, 0))
        i = self.pick(lambda t: t.ndim > 0 and _distinct_along(t, d), loose=0,
                      new=lambda: self.leaf(self.shape(1, 3), values="randn"))
        x = self.env[i]
        if not _distinct_along(x, d):  # (a new leaf: randn values have no ties)
            d = -1
        n = self._size_at(x, d)
        k = self.d(st.integers(0, n)) if not self.chance(30) else n + 1
        return [i], {"k": k, "dim": d, "largest": self.d(st.booleans()), "n_out": 2}

    def op_median_dim(self):
        ids, p = self.one_dim()
        p["n_out"] = 2
        return ids, p

    # views and indexing
    def op_flip(self):
        i, x = self.one()
        dims = self.dims(x.ndim)
        return [i], {"dims": [] if dims is None else dims}

    def op_roll(self):
        i, x = self.one()
        if self.chance(3) or x.ndim == 0:
            return [i], {"shifts": self.d(st.integers(-3, 3)), "dims": None}
        k = self.d(st.integers(1, min(2, x.ndim)))
        dims = [self.dim(x.ndim) for _ in range(k)]
        return [i], {"shifts": [self.d(st.integers(-3, 3)) for _ in dims], "dims": dims}

    def op_tril(self):
        i, _ = self.one(lambda t: t.ndim >= 2, loose=20, ndims=(2, 3))
        return [i], {"diagonal": self.d(st.sampled_from([0, 1, -1, 2]))}

    op_triu = op_tril

    def op_diagonal(self):
        i, x = self.one(lambda t: t.ndim >= 2, loose=20, ndims=(2, 3))
        d1 = self.dim(x.ndim)
        d2 = self.dim(x.ndim)
        return [i], {"offset": self.d(st.sampled_from([0, 1, -1])), "dim1": d1, "dim2": d2}

    def op_movedim(self):
        i, x = self.one()
        return [i], {"source": self.dim(x.ndim), "destination": self.dim(x.ndim)}

    def op_index_select(self):
        i, x = self.one(lambda t: t.ndim > 0, ndims=(1, 3))
        d = self.dim(x.ndim)
        n = self._size_at(x, d)
        return [i], {"dim": d, "index": self._index_data((self.d(st.integers(0, 4)),), n)}

    def _index_shape(self, x, d, distinct=False) -> tuple:
        """An index shape for gather/scatter on ``x`` along ``d``: the same number of dims,
        no larger than ``x`` in the others (along ``d``, at most its size when ``distinct``)."""
        shape = []
        for k, n in enumerate(x.shape):
            if k == d % max(x.ndim, 1):
                top = n if distinct else 3
                shape.append(self.d(st.integers(0 if not distinct else min(1, n), top)))
            else:
                shape.append(self.d(st.integers(min(1, n), n)))
        return tuple(shape)

    def op_gather(self):
        i, x = self.one(lambda t: t.ndim > 0, ndims=(1, 3))
        d = self.d(st.integers(-x.ndim, x.ndim - 1)) if x.ndim else 0
        n = self._size_at(x, d)
        return [i], {"dim": d, "index": self._index_data(self._index_shape(x, d), n)}

    def op_scatter(self):
        # distinct indices along the dim: with repeats PyTorch leaves undefined which value
        # lands (and the gradient of the ones that do not)
        i, x = self.one(lambda t: t.ndim > 0, ndims=(1, 3))
        d = self.d(st.integers(-x.ndim, x.ndim - 1)) if x.ndim else 0
        n = self._size_at(x, d)
        shape = self._index_shape(x, d, distinct=True)
        distinct = d % x.ndim if x.ndim else None  # (a 0-dim x: a 0-dim index)
        p = {"dim": d, "index": self._index_data(shape, n, distinct_dim=distinct)}
        if self.chance(3):
            p["value"] = self.d(st.sampled_from([0.0, 2.5]))
            return [i], p
        return [i, self.exact(shape)], p

    def op_scatter_add(self):
        i, x = self.one(lambda t: t.ndim > 0, ndims=(1, 3))
        d = self.d(st.integers(-x.ndim, x.ndim - 1)) if x.ndim else 0
        n = self._size_at(x, d)
        shape = self._index_shape(x, d)
        return [i, self.exact(shape)], {"dim": d, "index": self._index_data(shape, n)}

    # linear algebra
    def op_einsum(self):
        eq, operands = self.d(st.sampled_from(EINSUM))
        sizes = {c: self.size() for c in "abijk"}
        ids = [self.exact(tuple(sizes[c] for c in spec)) for spec in operands]
        return ids, {"equation": eq}

    def op_outer(self):
        i, _ = self.one(lambda t: t.ndim == 1, loose=20, ndims=(1, 1))
        return [i, self.exact((self.size(),))], {}

    def op_trace(self):
        return [self.pick(lambda t: t.ndim == 2, loose=20,
                          new=lambda: self.leaf(self.shape(2, 2)))], {}

    # nn
    def _weight_bias(self, shape) -> list:
        k = self.d(st.integers(0, 2))
        return [self.exact(shape) for _ in range(k)]

    def op_layer_norm(self):
        i, x = self.one(lambda t: t.ndim > 0, ndims=(1, 3))
        k = self.d(st.integers(1, max(1, x.ndim)))
        shape = list(x.shape[-k:]) if x.ndim else [1]
        return [i, *self._weight_bias(tuple(shape))], {"shape": shape}

    def op_group_norm(self):
        # (the groups of a float32 input have a spread: see _groups_spread)
        i, x = self.one(lambda t: t.ndim >= 2 and any(_groups_spread(t, g) for g in (1, 2)),
                        loose=20, ndims=(2, 4))
        c = x.shape[1] if x.ndim >= 2 else 1
        options = [g for g in (1, 2, 3) if c % g == 0] or [1]
        spread = [g for g in options if _groups_spread(x, g)]
        if not spread:  # (a new leaf without one: the same shape in float64)
            i = self.leaf(tuple(x.shape), dtype="float64")
            x, spread = self.env[i], options
        groups = self.d(st.sampled_from(spread))
        from .generate import KNOWN_GAPS

        if "group_norm_weight_grad_graph" in KNOWN_GAPS and not x.requires_grad:
            return [i], {"groups": groups}  # (see the gap)
        return [i, *self._weight_bias((c,))], {"groups": groups}

    def op_batch_norm(self):
        i, x = self.one(lambda t: t.ndim >= 2 and _groups_spread(t), loose=20, ndims=(2, 4))
        if not _groups_spread(x):  # (a new leaf without a spread: see _groups_spread)
            i = self.leaf(tuple(x.shape), dtype="float64")
            x = self.env[i]
        c = x.shape[1] if x.ndim >= 2 else 1
        return [i, *self._weight_bias((c,))], {}

    def op_embedding(self):
        w = self.pick(lambda t: t.ndim == 2 and t.shape[0] > 0, loose=20,
                      new=lambda: self.leaf((self.d(st.integers(1, 4)), self.size())))
        n = self.env[w].shape[0] if self.env[w].ndim == 2 else 1
        shape = tuple(self.d(st.integers(0, 3)) for _ in range(self.d(st.integers(0, 2))))
        pad = self.d(st.sampled_from([None, None, 0, -1]))
        return [w], {"index": self._index_data(shape, n), "padding_idx": pad}

    def op_normalize(self):
        i, x = self.one()
        return [i], {"p": self.d(st.sampled_from([2, 1, "inf"])), "dim": self.dim(x.ndim)}

    def op_smooth_l1_loss(self):
        ids, p = self.loss_pair()
        p["beta"] = self.d(st.sampled_from([1.0, 0.5, 0.0]))
        return ids, p

    def op_huber_loss(self):
        ids, p = self.loss_pair()
        p["delta"] = self.d(st.sampled_from([1.0, 0.5, 2.0]))
        return ids, p

    def op_bce_logits(self):
        return self.loss_pair()

    def op_kl_div(self):
        ids, p = self.loss_pair()
        p["reduction"] = self.d(st.sampled_from(REDUCTIONS + ["batchmean"]))
        p["log_target"] = self.d(st.booleans())
        return ids, p

    def op_cosine_similarity(self):
        i, x = self.one()
        j = self.exact(tuple(x.shape)) if not self.chance(6) else self.partner(tuple(x.shape))
        return [i, j], {"dim": self.dim(x.ndim)}
