"""float16/bfloat16 through the code paths that check "is this floating?": ``out=`` casts,
floor division, SVD and matrix norms, logical ops, resize. bfloat16's NumPy kind is "V", not
"f", so a check that reads the kind alone treats it as an integer type; each case runs the same
code under both libraries (values read as float32: torch's ``.numpy()`` has no bfloat16)."""

import pytest

from minigrad.parity import assert_parity, to_numpy

pytest.importorskip("ml_dtypes")


def _read(lib, r):
    if isinstance(r, lib.Tensor):
        return str(r.dtype).split(".")[-1], to_numpy(r.detach().float())
    return r


CASES = {
    "add_out_bfloat16": lambda L, d: L.add(L.ones(2, device=d), L.ones(2, device=d),
                                          out=L.empty(2, dtype=L.bfloat16, device=d)),
    "mean_out_bfloat16": lambda L, d: L.mean(L.ones(2, 2, device=d), 0,
                                            out=L.empty(2, dtype=L.bfloat16, device=d)),
    "cumsum_out_bfloat16": lambda L, d: L.cumsum(L.ones(3, device=d), 0,
                                                out=L.empty(3, dtype=L.bfloat16, device=d)),
    "floor_divide_bfloat16": lambda L, d: L.floor_divide(
        L.tensor([3., 5.], dtype=L.bfloat16, device=d), 2),
    "ifloordiv_bfloat16": lambda L, d: L.tensor([3., 5.], dtype=L.bfloat16,
                                                device=d).__ifloordiv__(2.0),
    "add_bfloat16_into_int": lambda L, d: L.ones(2, dtype=L.int32, device=d).add_(
        L.ones(2, dtype=L.bfloat16, device=d)),
    "logical_and_bfloat16": lambda L, d: L.logical_and(L.ones(2, dtype=L.bfloat16, device=d),
                                                       L.zeros(2, device=d)),
    "resize_bfloat16": lambda L, d: tuple(L.ones(2, dtype=L.bfloat16,
                                                 device=d).resize_(3).shape),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_half_precision_paths(case, device):
    def scenario(lib, device):
        try:
            return _read(lib, CASES[case](lib, device))
        except Exception as e:  # noqa: BLE001 - the error is the trace
            return type(e).__name__, str(e).replace("torch", "minigrad")

    assert_parity(scenario, device=device, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["svdvals", "matrix_norm_nuc"])
def test_svd_has_no_half_kernel(fn, dtype):
    """No float16/bfloat16 SVD on the CPU (svdvals: NotImplementedError naming the kernel;
    matrix_norm: RuntimeError, "Low precision dtypes not supported");
    the dimension check comes first."""
    def scenario(lib, device):
        f = (lib.linalg.svdvals if fn == "svdvals"
             else lambda x: lib.linalg.matrix_norm(x, "nuc"))
        out = []
        for shape in ((2, 2), (2,)):
            try:
                f(lib.ones(*shape, dtype=getattr(lib, dtype)))
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out

    a, _ = assert_parity(scenario)
    assert a[0] is not None and a[1][0] == "RuntimeError"  # (both shapes raise)
