"""Parity of ``torch.autograd.forward_ad``'s API and of how tangents are stored and flow
(issue 23): levels and their errors, ``make_dual``/``unpack_dual`` (identity, layout, views),
views and in-place ops on dual tensors, ``no_grad``, and the tangents' deletion at exit."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from minigrad.parity import capture_error as _capture
from tests.parity._forward_ad import check_jvp


def capture_error(fn):
    """The error's type and message, the library's name in dtypes taken out."""
    got = _capture(fn)
    return got and (got[0], got[1].replace("minigrad.", "torch."))

R = np.random.default_rng(23)
X, V = R.standard_normal((2, 3)), R.standard_normal((2, 3))


def _levels(lib):
    fwAD = lib.autograd.forward_ad
    out = {"outside": capture_error(lambda: fwAD.make_dual(lib.ones(2), lib.ones(2))),
           "exit_none": capture_error(fwAD.exit_dual_level)}
    with fwAD.dual_level() as level:
        out["level"] = level
        out["nested"] = capture_error(lambda: fwAD.enter_dual_level())

        def nested_ctx():
            with fwAD.dual_level():
                pass
        out["nested_ctx"] = capture_error(nested_ctx)
        out["exit_other"] = capture_error(lambda: fwAD.exit_dual_level(level=3))
    level = fwAD.enter_dual_level()
    out["again"] = level
    fwAD.exit_dual_level(level=level)
    out["unpack_outside"] = fwAD.unpack_dual(lib.ones(2)).tangent
    return out


def test_levels_and_their_errors():
    assert_parity(_levels)


def _make_dual_checks(lib):
    fwAD = lib.autograd.forward_ad
    x = lib.tensor(X, dtype=lib.float32)
    out = {}
    with fwAD.dual_level():
        t = lib.tensor(V, dtype=lib.float32)
        d = fwAD.make_dual(x, t)
        p, tt = fwAD.unpack_dual(d)
        out["namedtuple"] = [isinstance(fwAD.unpack_dual(d), fwAD.UnpackedDualTensor),
                             fwAD.UnpackedDualTensor._fields]
        out["basic"] = [d is x, d._base is x, d.requires_grad, d.grad_fn is None, tt is t,
                        p is x, p._base is x, fwAD.unpack_dual(p).tangent is None,
                        fwAD.unpack_dual(x).tangent is None, type(fwAD.unpack_dual(d)).__name__]
        tT = lib.tensor(np.ascontiguousarray(V.T), dtype=lib.float32).T
        d2 = fwAD.make_dual(x, tT)
        t2 = fwAD.unpack_dual(d2).tangent
        out["layout"] = [t2 is tT, tuple(t2.stride()), to_numpy(t2)]
        d3 = fwAD.make_dual(x, lib.tensor(V))  # a float64 tangent on a float32 primal
        out["dtype"] = str(fwAD.unpack_dual(d3).tangent.dtype).split(".")[-1]
        out["errors"] = [
            capture_error(lambda: fwAD.make_dual(x, lib.ones(4))),
            capture_error(lambda: fwAD.make_dual(d, t)),
            capture_error(lambda: fwAD.make_dual(lib.arange(3), lib.ones(3))),
            capture_error(lambda: fwAD.make_dual(lib.ones(3), lib.arange(3))),
            capture_error(lambda: fwAD.make_dual(lib.ones(3), fwAD.make_dual(lib.ones(3),
                                                                            lib.ones(3)))),
        ]
        xr = lib.tensor(X, requires_grad=True)
        dr = fwAD.make_dual(xr, lib.tensor(V))
        pr = fwAD.unpack_dual(dr).primal
        out["grad_fns"] = [type(dr.grad_fn).__name__,
                           pr.grad_fn.name().rsplit("::", 1)[-1], pr.requires_grad]
        out["repr"] = [repr(d), repr(dr * 2).split("tangent=")[0].replace("minigrad.", "torch.")]
        y = d.sin()
    out["after"] = [fwAD.unpack_dual(d).tangent is None, fwAD.unpack_dual(y).tangent is None,
                    repr(d)]
    return out


def test_make_dual_and_unpack_dual():
    assert_parity(_make_dual_checks)


def _views_and_inplace(lib):
    fwAD = lib.autograd.forward_ad
    out = {}
    with fwAD.dual_level():
        t = lib.tensor(V)
        d = fwAD.make_dual(lib.tensor(X), t)
        v = d[:, 1:].t()
        tv = fwAD.unpack_dual(v).tangent
        out["view"] = [to_numpy(tv), tv._base is t, tuple(tv.stride())]
        b = lib.zeros(4, dtype=lib.float64)
        bv = b[1:3]  # a view made before its base has a tangent
        b.add_(fwAD.make_dual(lib.zeros(4, dtype=lib.float64), lib.arange(4.0,
                                                                          dtype=lib.float64)))
        tb = fwAD.unpack_dual(b).tangent
        out["lazy_view"] = [to_numpy(fwAD.unpack_dual(bv).tangent),
                            fwAD.unpack_dual(bv).tangent._base is tb]
        q = lib.zeros(4, dtype=lib.float64)
        qv = q[1:3]
        qv.copy_(fwAD.make_dual(lib.zeros(2, dtype=lib.float64), lib.ones(2,
                                                                          dtype=lib.float64)))
        tq = fwAD.unpack_dual(q).tangent
        out["view_inplace"] = [to_numpy(tq), fwAD.unpack_dual(qv).tangent._base is tq]
        e = lib.ones(2, 3, dtype=lib.float64)
        t0 = lib.zeros(2, 3, dtype=lib.float64)
        ed = fwAD.make_dual(e, t0)
        ed.mul_(d)
        te = fwAD.unpack_dual(ed).tangent
        out["inplace"] = [te is t0, t0._version, ed._version, to_numpy(te),
                          fwAD.unpack_dual(e).tangent is None]
        with lib.no_grad():
            z = d * 3
        out["no_grad"] = to_numpy(fwAD.unpack_dual(z).tangent)
        out["detach"] = fwAD.unpack_dual(d.detach()).tangent is None
    return out


def test_views_inplace_and_no_grad():
    assert_parity(_views_and_inplace)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sin(),
    lambda lib, x: x.exp() * x,
    lambda lib, x: x + lib.ones(1, 3, dtype=lib.float64) * 2,
    lambda lib, x: (x - x.t().t() * 0.5) + 1,
], ids=["sin", "exp_mul", "add_broadcast", "sub"])
def test_first_formulas(fn):
    check_jvp(fn, [X], [V])


def _reverse_over_forward(lib):
    fwAD = lib.autograd.forward_ad
    x = lib.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, lib.tensor(V))
        jv = fwAD.unpack_dual(d.sin() * d).tangent
        out = [type(jv.grad_fn).__name__ if jv.grad_fn else None, jv.requires_grad]
        (g,) = lib.autograd.grad(jv.sum(), x)
    return out + [to_numpy(g)]


def test_reverse_over_forward_hvp():
    assert_parity(_reverse_over_forward, rtol=1e-9, atol=1e-12)


def _inference_mode(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.ones(2), lib.ones(2) * 3)
        e = d * 1
        with lib.inference_mode():
            a = d * 2
            e.mul_(5)
        return [fwAD.unpack_dual(a).tangent, to_numpy(fwAD.unpack_dual(e).tangent),
                to_numpy(e)]


def test_inference_mode_turns_forward_ad_off():
    """Fuzz finding (theme forward): no tangent for an op in inference mode, and an in-place op
    there leaves the old tangent as it was."""
    assert_parity(_inference_mode)


def _aliased_inplace(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(3.0, dtype=lib.float64), lib.tensor(1.0, dtype=lib.float64))
        d.mul_(d)
        return to_numpy(d), to_numpy(fwAD.unpack_dual(d).tangent)


def test_inplace_op_with_self_as_operand_is_a_deliberate_difference():
    """``d.mul_(d)`` (x = 3, tangent 1): minigrad's tangent is the derivative of x², 2x = 6.
    PyTorch evaluates the formula after writing, reading the operand (self) modified:
    t * x_new + t * x_old = 9 + 3 = 12. Documented in docs/concepts/forward_mode.md; the
    fuzzer steers around it (``generate.FORWARD_INPLACE_ALIASED``)."""
    import torch

    import minigrad

    ours, theirs = _aliased_inplace(minigrad), _aliased_inplace(torch)
    assert ours[0] == theirs[0] == 9.0
    assert ours[1] == 6.0 and theirs[1] == 12.0


def _views_in_inference_mode(lib):
    fwAD = lib.autograd.forward_ad
    out = []
    with fwAD.dual_level():
        for shape in [(), (2, 3)]:
            d = fwAD.make_dual(lib.tensor(np.ones(shape)), lib.tensor(np.full(shape, 2.0)))
            with lib.inference_mode():
                v, s = d.t(), d.sin()
                out.append([fwAD.unpack_dual(d).tangent, fwAD.unpack_dual(v).tangent,
                            repr(d).replace("minigrad.", "torch.")])
            out.append([to_numpy(fwAD.unpack_dual(v).tangent), fwAD.unpack_dual(s).tangent,
                        v.is_inference()])
    return out


def test_views_made_in_inference_mode_find_their_tangent_afterwards():
    """Fuzz finding (theme forward): inside inference mode no tangent is seen (nor printed);
    a view made there of a dual tensor has its tangent once inference mode is left, an op's
    result has none."""
    assert_parity(_views_in_inference_mode)


def _data_of_another_shape(lib):
    fwAD = lib.autograd.forward_ad
    out = []
    with fwAD.dual_level():
        for step in ("op", "inplace"):
            d = fwAD.make_dual(lib.tensor(1.0), lib.tensor(2.0)) * 1
            d.data = lib.ones(2)
            out.append(capture_error(lambda d=d, step=step: d.neg() if step == "op" else
                                     d.relu_()))
            out.append(to_numpy(fwAD.unpack_dual(d).tangent))
        d = fwAD.make_dual(lib.tensor(1.0), lib.tensor(2.0)) * 1
        d.data = lib.ones(2)
        d.add_(2.0, alpha=2)  # (the formula is the tangent itself: it stays, of shape [])
        out += [to_numpy(d), to_numpy(fwAD.unpack_dual(d).tangent),
                capture_error(lambda: d.mul_(3.0))]
    return out


def _group_norm_forward_over_reverse(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.ones(2, 2, dtype=lib.float64, requires_grad=True) * 1,
                           lib.ones(2, 2, dtype=lib.float64))
        y = lib.nn.functional.group_norm(x.reshape(2, 2, 1) * lib.arange(2.0), 1)
        return capture_error(lambda: y.sum().backward())


def test_group_norm_forward_over_reverse_is_refused():
    """Fuzz finding (theme forward): PyTorch has no forward formula for
    ``native_group_norm_backward``: a backward with dual tensors raises NotImplementedError."""
    assert_parity(_group_norm_forward_over_reverse)


def test_data_of_another_shape_under_a_tangent():
    """Fuzz finding (theme forward): ``.data =`` of another shape keeps the old tangent; an op
    on it then fails PyTorch's size check, an in-place op its broadcast check."""
    assert_parity(_data_of_another_shape)


def _view_of_a_stale_tangent(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(1.0), lib.tensor(2.0))
        d.data = lib.ones(2)
        return capture_error(lambda: d.t())


def test_view_of_a_tangent_left_at_another_shape_is_refused():
    """Fuzz finding (theme forward, long profile): after ``.data =`` of another shape a view
    op cannot take the view of the old tangent (minigrad read memory past its end, PyTorch
    raises its size error)."""
    assert_parity(_view_of_a_stale_tangent)
