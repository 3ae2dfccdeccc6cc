"""Parity: differences the fuzzer's long profile and its new ops found (issue 17, session 8),
each written as a direct scenario. (The fuzz programs themselves are in
``tests/fuzz/test_regressions.py``.)

CPU only where PyTorch's behaviour is its CPU kernel's (index_select's errors, the stale stride
slots read by AccumulateGrad's layout check).
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

X = np.array([1.0, 2.0, 3.0], dtype=np.float32)


def test_grad_checks_outputs_before_inputs(device):
    """autograd.grad with an output and an input that do not require grad: PyTorch names the
    output ("element 0 of tensors ...") before it looks at the inputs."""
    def scenario(lib, device):
        plain = mk(lib, device, X)
        x = mk(lib, device, X, requires_grad=True)
        ones = mk(lib, device, np.ones(3, np.float32))
        return {
            "both": err(lambda: lib.autograd.grad(plain, plain, ones)),
            "input": err(lambda: lib.autograd.grad(x * 2, plain, ones)),
            "output": err(lambda: lib.autograd.grad(plain, x, ones)),
        }
    assert_parity(scenario, device=device)


INDEX_SELECT = [((4, 4), 0, [4]), ((4, 4), 1, [4]), ((4, 4), 0, [-1]), ((4, 4), 1, [-1]),
                ((3, 4, 5), 2, [5]), ((3, 4, 5), 1, [0, -1]), ((4,), 0, [-1]), ((), 0, [-1]),
                ((0, 3), 1, [3]), ((3, 0), 1, [0]), ((0, 3), 0, [0]), ((2, 0, 2), 2, [2])]


@pytest.mark.parametrize("shape,dim,index", INDEX_SELECT)
def test_index_select_out_of_range_errors(shape, dim, index):
    """PyTorch's CPU index_select: IndexError "index out of range in self" (negative indices
    too) except along dim 1 of a tensor of 2+ dims and for an empty one (RuntimeError naming
    the index, or "should be positive" for an empty dim)."""
    def scenario(lib, device):
        x = lib.tensor(np.ones(shape, np.float32))
        return err(lambda: x.index_select(dim, lib.tensor(np.array(index, np.int64))))
    assert_parity(scenario)


def test_movedim_of_0dim_tensor_is_an_alias(device):
    def scenario(lib, device):
        x = mk(lib, device, np.array(2.0, np.float32), requires_grad=True)
        ys = [x.movedim(0, 0), x.movedim(-1, 0), x.movedim([0], [-1]), x.movedim([], [])]
        return {"nodes": [node_name(y.grad_fn) for y in ys],
                "bad": err(lambda: x.movedim(1, 0))}
    assert_parity(scenario, device=device)


def test_flip_is_a_copy_even_when_contiguous(device):
    """flip of a size-1 dim is C-contiguous in NumPy's view too: it must still be a copy."""
    def scenario(lib, device):
        x = mk(lib, device, np.ones((1, 3), np.float32))
        y = x.flip(-2)
        y.fill_(2.0)
        return {"x": to_numpy(x), "y": to_numpy(y), "version": x._version}
    assert_parity(scenario, device=device)


def test_detach_of_inference_tensor_outside_inference_mode(device):
    """PyTorch: an inference tensor too, but with a version counter of its own (at 0), so
    in-place ops on it work and count (on it only); its views have none."""
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        with lib.inference_mode():
            y = x.expm1()
        d = y.detach()
        out = {"inference": (d.is_inference(), d.view(3).is_inference(),
                             d.detach().is_inference()),
               "version": d._version, "add_": to_numpy(d.add_(1.0)), "version2": d._version,
               "y": to_numpy(y), "view_add_": err(lambda: d[:2].add_(1.0)),
               "view_version": err(lambda: d[:2]._version), "y_add_": err(lambda: y.add_(1)),
               "save": err(lambda: d * x)}
        with lib.inference_mode():
            d.add_(1.0)  # inside inference mode: no count
        with lib.no_grad():
            d.mul_(2.0)
        out["after"] = (d._version, to_numpy(d))
        return out
    assert_parity(scenario, device=device)


def test_inplace_on_inference_tensor_saving_self_writes_then_raises(device):
    """mul_ by a tensor that requires grad saves (a clone of) self; PyTorch writes, then its
    version bump refuses the inference tensor."""
    def scenario(lib, device):
        with lib.inference_mode():
            a = mk(lib, device, X) * 1
        w = mk(lib, device, X, requires_grad=True)
        return {"mul_": err(lambda: a.mul_(w)), "a": to_numpy(a),
                "addcmul_": err(lambda: a.addcmul_(a, w)), "a2": to_numpy(a)}
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("old,new,dtype", [((2, 2), (), "float64"), ((3,), (), "float64"),
                                           ((1, 3), (3,), "float64"), ((3, 1), (3,), "float64"),
                                           ((2, 1, 2), (2, 2), "float64"),
                                           ((2, 2), (2, 2), "float32")])
def test_grad_after_data_of_fewer_dims_or_other_dtype(old, new, dtype):
    """The layout check PyTorch's AccumulateGrad runs before taking the gradient as .grad:
    strides in elements, and past the leaf's last dim the stale slots it reads (1 after a 0-dim
    tensor's first, else 0); a gradient that fails it is copied into the leaf's new shape."""
    def scenario(lib, device):
        x = lib.tensor(np.ones(old)).requires_grad_()
        y = x * 2
        x.data = lib.tensor(np.zeros(new, dtype=dtype))
        e = err(lambda: y.backward(lib.tensor(np.ones(old))))
        g = x.grad
        return {"error": e, "grad": None if g is None else (to_numpy(g), str(g.dtype)[-7:],
                                                            g._version)}
    assert_parity(scenario)


@pytest.mark.parametrize("new", ["fresh", "offset", "beyond"])
def test_inplace_on_view_after_its_data_was_replaced(new):
    """``view.data = y`` then an in-place op on the view: PyTorch still takes the view for
    ``base.as_strided(size, stride, storage_offset)`` of its new geometry (y's, storage offset
    included): CopySlices on the base, AsStridedBackward0 on the view, the gradient reaching the
    base's cells that geometry names; the write goes to y's memory (minigrad raised). A
    geometry past the base's memory fails only in backward (as_strided's setStorage error)."""
    def scenario(lib, device):
        b = lib.tensor(np.arange(6.0).reshape(3, 2)).requires_grad_()
        base = b * 1
        x = base.view(6)
        y = lib.tensor(np.full({"fresh": (3, 1), "offset": (5, 1), "beyond": (9, 1)}[new],
                               10.0))
        x.data = y[2:] if new == "offset" else y
        x.sub_(0.5)
        node = x.grad_fn
        saved = (node._saved_size, node._saved_stride, node._saved_storage_offset)
        w = lib.tensor(np.arange(1.0, 1.0 + x.numel()).reshape(tuple(x.shape)))
        e = err(lambda: (x * w).sum().backward())
        return {"x": to_numpy(x), "y": to_numpy(y), "base": to_numpy(base),
                "nodes": (node_name(node), node_name(base.grad_fn)), "saved": saved,
                "error": e, "grad": None if b.grad is None else to_numpy(b.grad)}
    assert_parity(scenario)


def test_embedding_backward_of_empty_indices(device):
    def scenario(lib, device):
        w = mk(lib, device, np.ones((3, 2), np.float32), requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor(np.zeros((2, 0), np.int64)).to(w.device), w)
        y.backward(lib.ones_like(y))
        return {"shape": tuple(y.shape), "grad": to_numpy(w.grad)}
    assert_parity(scenario, device=device)


def test_adaptive_avg_pool2d_backward_keeps_nan_in_its_window(device):
    def scenario(lib, device):
        x = mk(lib, device, np.arange(8, dtype=np.float32).reshape(2, 2, 2), requires_grad=True)
        y = lib.nn.functional.adaptive_avg_pool2d(x, 3)
        g = np.ones((2, 3, 3), np.float32)
        g[1, 2, 0] = np.nan
        g[0, 0, 0] = np.inf
        y.backward(mk(lib, device, g))
        return to_numpy(x.grad)
    assert_parity(scenario, device=device)


def test_signed_zero_kept_on_ties_with_a_bound(device):
    """PyTorch's relu, clamp, clamp_min/max, hardtanh, maximum and minimum return the input's
    value where it equals the bound (or other): -0.0 stays -0.0; NaN propagates."""
    def scenario(lib, device):
        x = mk(lib, device, np.array([-0.0, 0.0, -1.0, np.nan, 3.0], np.float32))
        z = mk(lib, device, np.array([0.0, -0.0, 0.0, 0.0, np.nan], np.float32))
        F = lib.nn.functional
        outs = [x.relu(), x.clone().relu_(), x.clamp(0, None), x.clamp(None, 0), x.clamp(0, 0),
                x.clamp_min(0), x.clamp_max(-0.0), x.clone().clamp_(0, None), x.clamp(z, None),
                x.clamp(None, z), x.clamp_min(z), x.clamp_max(z), lib.maximum(x, z),
                lib.minimum(x, z), lib.maximum(z, x), F.hardtanh(x, -1.0, 0.0), F.relu6(x)]
        return [to_numpy(1 / o) for o in outs]
    assert_parity(scenario, device=device)


def test_post_hook_sees_none_for_edges_not_needed(device):
    """Under backward(inputs=) / autograd.grad a node's post hook gets None for the gradients
    of edges that lead to no input (PyTorch's formulas skip them)."""
    def scenario(lib, device):
        w = mk(lib, device, np.ones((1, 1), np.float32), requires_grad=True)
        x = mk(lib, device, np.ones((2, 1), np.float32), requires_grad=True)
        y = x.mm(w.t())
        log = []
        y.grad_fn.register_hook(lambda gi, go: log.append([None if g is None else tuple(g.shape)
                                                           for g in gi]))
        g = mk(lib, device, np.ones((2, 1), np.float32))
        lib.autograd.backward([y], [g], inputs=[y], retain_graph=True)
        lib.autograd.grad(y, x, g, retain_graph=True)
        lib.autograd.backward([y], [g], inputs=[w])
        return log
    assert_parity(scenario, device=device)


def _inference_operand_cases(lib, device):
    """``(name, fn)`` pairs: ops with an inference operand that does not fit (a 0-D one, a
    size that does not match, another dtype), beside ``x`` requiring grad or not."""
    x = mk(lib, device, X, requires_grad=True)
    plain = mk(lib, device, X)
    m = mk(lib, device, np.ones((2, 3), np.float32), requires_grad=True)
    b3 = mk(lib, device, np.ones((2, 3, 4), np.float32), requires_grad=True)
    with lib.inference_mode():
        s = mk(lib, device, np.float32(2.0)) * 1  # (made in inference mode: inference tensors)
        v4 = mk(lib, device, np.ones(4, np.float32)) * 1
        v3d = mk(lib, device, np.ones(3, np.float64)) * 1
        sq = mk(lib, device, np.ones((5, 5), np.float32)) * 1
        b5 = mk(lib, device, np.ones((2, 5, 5), np.float32)) * 1
    F = lib.nn.functional
    return [
        ("dot(x, s)", lambda: lib.dot(x, s)), ("dot(s, x)", lambda: lib.dot(s, x)),
        ("dot(x, v4)", lambda: lib.dot(x, v4)), ("dot(x, v3d)", lambda: lib.dot(x, v3d)),
        ("dot(plain, s)", lambda: lib.dot(plain, s)), ("mv(m, s)", lambda: lib.mv(m, s)),
        ("mv(s, x)", lambda: lib.mv(s, x)), ("mv(m, v4)", lambda: lib.mv(m, v4)),
        ("mv(sq, x)", lambda: lib.mv(sq, x)), ("mm(m, s)", lambda: lib.mm(m, s)),
        ("mm(m, sq)", lambda: lib.mm(m, sq)), ("mm(x, sq)", lambda: lib.mm(x, sq)),
        ("bmm(b3, s)", lambda: lib.bmm(b3, s)), ("bmm(b3, b5)", lambda: lib.bmm(b3, b5)),
        ("addmm(s, m, sq)", lambda: lib.addmm(s, m, sq)),
        ("addmm(m, sq, sq)", lambda: lib.addmm(m, sq, sq)),  # (nothing inference is saved)
        ("matmul(x, s)", lambda: lib.matmul(x, s)), ("matmul(b3, sq)", lambda: b3 @ sq),
        ("matmul(m, v4)", lambda: m @ v4), ("linear(m, sq)", lambda: F.linear(m, sq)),
        ("mul(x, v4)", lambda: x * v4), ("mul(plain, v4)", lambda: plain * v4),
        ("div(x, v4)", lambda: x / v4), ("div(v4, x)", lambda: v4 / x),
        ("pow(x, v4)", lambda: x ** v4), ("maximum(x, v4)", lambda: lib.maximum(x, v4)),
        ("minimum(v4, x)", lambda: lib.minimum(v4, x)), ("add(x, v4)", lambda: x + v4),
    ]


@pytest.mark.parametrize("mode", ["grad", "no_grad"])
def test_inference_operand_error_comes_before_the_shape_checks(device, mode):
    """PyTorch's autograd layer saves an op's tensors for backward before the kernel checks
    them: an inference tensor that would be saved raises "Inference tensors cannot be saved
    for backward" ahead of the rank, size and dtype errors (``dot(x, 0-D inference tensor)``,
    found by the fuzzer); under no_grad, or when nothing saved is an inference tensor (add
    saves nothing, addmm not its bias), the shape error. minigrad checked the shapes first."""
    def scenario(lib, device):
        cases = _inference_operand_cases(lib, device)
        with lib.set_grad_enabled(mode == "grad"):
            return {name: err(fn) for name, fn in cases}
    assert_parity(scenario, device=device)


def test_expand_error_names_the_last_mismatched_dim(device):
    """PyTorch checks an expand from the last dim: its error names the last size that does
    not fit, and that before a leading -1 (minigrad named the first)."""
    def scenario(lib, device):
        x = mk(lib, device, np.ones((2, 3), np.float32))
        col = mk(lib, device, np.ones((2, 1), np.float32))
        return [err(lambda: x.expand(5, 5)), err(lambda: col.expand(-1, 5, 5)),
                err(lambda: x.expand(-1, -1, 3)), err(lambda: x.expand(3, -1, 5)),
                tuple(col.expand(3, -1, 4).shape)]
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("upstream", [0.0, 1.0, np.inf])
def test_kl_div_target_gradient_where_its_log_is_nan_or_inf(device, upstream):
    """kl_div's ``xlogy(target, target)``: PyTorch's gradient for the first operand is
    ``xlogy(grad, other)``, 0 where self == 0 and other <= 0, so a zero upstream gradient stays
    0 where log(target) is nan (a negative target) or -inf (found by the fuzzer: kl_div(x, x)
    behind clamp_ of its nan loss); minigrad multiplied, grad * log(target): nan."""
    def scenario(lib, device):
        F = lib.nn.functional
        t = mk(lib, device, np.array([-1.0, 0.0, 2.0, np.nan, 0.5]), requires_grad=True)
        x = mk(lib, device, np.array([0.3, -0.2, 1.0, 0.0, -1.0]), requires_grad=True)
        g = mk(lib, device, np.full(5, upstream))
        out = {}
        for name, (a, b) in {"target": (x, t), "same": (t, t)}.items():
            loss = F.kl_div(a, b, reduction="none")
            out[name] = [to_numpy(v) for v in lib.autograd.grad(loss, (a, b), g)]
        return out
    assert_parity(scenario, device=device)


def test_scans_of_a_transposed_tensor_are_contiguous(device):
    """cumsum, cumprod and logcumsumexp return a contiguous result in PyTorch whatever the
    input's layout; NumPy's scan kept a transposed input's strides (found by the fuzzer:
    ``layout`` of cumsum of a transposed tensor)."""
    def scenario(lib, device):
        x = mk(lib, device, np.arange(24.0).reshape(2, 3, 4) / 10, requires_grad=True)
        out = []
        for v in (x.transpose(0, 1), x.permute(2, 0, 1), x[:, :, 0].t()):
            for y in (v.cumsum(0), v.cumprod(-1), v.logcumsumexp(1)):
                out.append((y.stride(), y.is_contiguous(), to_numpy(y)))
        s = x[0, 0, 1]  # (a 0-dim tensor stays 0-dim)
        for y in (s.cumsum(0), s.cumprod(-1), s.logcumsumexp(0)):
            out.append((tuple(y.shape), y.stride(), to_numpy(y)))
        return out
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("base", [0.0, -1.0, 2.0])
def test_pow_exponent_gradients_grouped_as_pytorch(device, base):
    """``base ** x``: PyTorch's exponent gradient is ``grad * where(cond, 0, result *
    log(base))``; minigrad's ``grad * result * where(cond, 0, log(base))`` differed in the
    second-order gradient (0 where PyTorch's masked ``result * log(0)`` gives nan: found by
    the fuzzer, higher theme) and in the rounding. Tensor and scalar bases, upstream
    gradients with 0 and inf, and the self gradient (``grad * (e * s^(e-1))``) too."""
    def scenario(lib, device):
        e = mk(lib, device, np.array([0.25, -0.5, 0.0, 2.0, 1.5], np.float32), requires_grad=True)
        b = mk(lib, device, np.full(5, base, np.float32), requires_grad=True)
        g = mk(lib, device, np.array([1.0, 0.0, np.inf, -2.0, 0.3], np.float32))
        out = []
        for y, ins in ((b ** e, (e, b)), (base ** e, (e,)), (b[:1] ** e, (e, b))):
            grads = lib.autograd.grad(y, ins, g, create_graph=True, allow_unused=True)
            second = lib.autograd.grad(sum(x.sum() for x in grads), (e, b), allow_unused=True)
            out.append(([to_numpy(x) for x in grads],
                        [None if x is None else to_numpy(x) for x in second]))
        return out
    assert_parity(scenario, device=device)


def _layouts(lib, device):
    """A 3-D tensor in four layouts: contiguous, two transposes and a permutation."""
    x = mk(lib, device, np.arange(24.0).reshape(2, 3, 4) / 7 - 1)
    return {"c": x, "tr01": x.transpose(0, 1), "tr12": x.transpose(1, 2),
            "perm": x.permute(2, 0, 1), "t2": x[0].t()}


def test_result_layouts_of_unary_ops_and_reductions(device):
    """PyTorch allocates the results of reductions (sum/mean/var/std/amax/max/argmax/
    logsumexp/prod/norm over a dim), softmax, log_softmax, repeat and batch_norm (not
    channels-last) contiguous, and those of sort and flip laid out as the input; NumPy's
    results follow the input's layout (the fuzzer compares strides: found with the ops of
    ops_more.py joined to the default pool)."""
    def scenario(lib, device):
        F = lib.nn.functional
        out = {}
        for name, v in _layouts(lib, device).items():
            ops = {"sum": v.sum(0), "sum_k": v.sum(-1, keepdim=True), "mean": v.mean(0),
                   "var": v.var(1, keepdim=True), "std": v.std(0), "amax": v.amax(0),
                   "max": v.max(0)[0], "argmax": v.argmax(0, keepdim=True),
                   "lse": v.logsumexp(0), "prod": v.prod(0), "norm": v.norm(dim=0),
                   "softmax": v.softmax(0), "log_softmax": v.log_softmax(-1),
                   "repeat": v.repeat(*([1] * v.ndim)), "sort": v.sort(0)[0],
                   "sort_i": v.sort(-1)[1], "flip": v.flip(0),
                   "bn": F.batch_norm(v, None, None, training=True)}
            out[name] = {k: ([s for n, s in zip(t.shape, t.stride()) if n != 1],
                             t.is_contiguous(), to_numpy(t)) for k, t in ops.items()}
        return out
    assert_parity(scenario, device=device)


def test_backward_reads_each_roots_grad_fn_before_checking_the_next(device):
    """autograd.backward / grad take each root's gradient edge in turn: a view made in
    inference mode whose base was modified since raises its error when its turn comes, before
    a later root that does not require grad is refused (minigrad checked every root's
    requires_grad first: found by the fuzzer, views theme)."""
    def scenario(lib, device):
        g = mk(lib, device, np.ones((2, 2), np.float32), requires_grad=True)
        with lib.inference_mode():
            _, b = g.split([0, 2], 0)
        with lib.no_grad():
            b[0] = 0.0
        s = mk(lib, device, np.float32(1.0))
        ones = lib.ones_like(b)
        one = lib.ones_like(s)
        return [err(lambda: lib.autograd.backward([b, s], [ones, one])),
                err(lambda: lib.autograd.backward([s, b], [one, ones])),
                err(lambda: lib.autograd.grad([b, s], g, [ones, one])),
                err(lambda: lib.autograd.grad([s, b], g, [one, ones]))]
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
def test_convolution_of_an_empty_batch_checks_no_dtypes(device, dtypes):
    """An input of no elements (but with channels) takes PyTorch's "empty" convolution,
    input * weight[0]: no input/weight dtype check, a result of the input's dtype, gradients
    of each one's (minigrad raised its dtype error: found by the fuzzer, higher theme)."""
    def scenario(lib, device):
        F = lib.nn.functional
        xd, wd = dtypes
        out = []
        for f, xs, ws in ((F.conv2d, (0, 2, 3, 3), (1, 2, 2, 2)), (F.conv1d, (0, 2, 3), (1, 2, 2)),
                          (F.conv3d, (0, 2, 3, 3, 3), (1, 2, 2, 2, 2))):
            x = mk(lib, device, np.zeros(xs, xd), requires_grad=True)
            w = mk(lib, device, np.ones(ws, wd), requires_grad=True)
            y = f(x, w)
            y.sum().backward()
            out.append((tuple(y.shape), str(y.dtype)[-7:], y.grad_fn.name(),
                        to_numpy(x.grad), to_numpy(w.grad)))
        x = mk(lib, device, np.ones((1, 2, 3, 3), xd))
        w = mk(lib, device, np.ones((1, 2, 2, 2), wd))
        # (with elements: still refused; PyTorch's message depends on its CPU backend)
        out.append(err(lambda: F.conv2d(x, w))[0])
        return out
    assert_parity(scenario, device=device)


def test_trace_gradient_of_a_tall_matrix(device):
    """trace's gradient is grad on the min(rows, cols) diagonal elements; minigrad stepped
    ncols + 1 through the whole flattened matrix, past the diagonal of a tall one (a (3, 1)
    matrix got grad at [2, 0] too: found by the fuzzer, higher theme)."""
    def scenario(lib, device):
        out = []
        for shape in ((3, 1), (4, 2), (2, 3), (3, 3), (5, 1), (0, 2), (2, 0)):
            x = mk(lib, device, np.ones(shape, np.float32), requires_grad=True)
            x.trace().backward(mk(lib, device, np.float32(2.0)))
            out.append(to_numpy(x.grad))
        return out
    assert_parity(scenario, device=device)


def test_maximum_minimum_gradients_are_at_version_one(device):
    """PyTorch's maximum/minimum formula ends in masked_fill_: the gradient a leaf's .grad
    takes over is at version 1, and one more after a second gradient is added in place
    (maximum(x, x)); summed to a broadcast input's shape it is a new tensor (version 0)."""
    def scenario(lib, device):
        x = mk(lib, device, np.array([1.0, -2.0, 3.0]), requires_grad=True)
        y = mk(lib, device, np.array([[1.0, 2.0, -3.0]] * 2), requires_grad=True)
        z = mk(lib, device, np.array([0.5, 2.0, 3.0]), requires_grad=True)
        (lib.maximum(x, y).sum() + lib.minimum(z, z).sum()).backward()
        return [x.grad._version, y.grad._version, z.grad._version, to_numpy(z.grad)]
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("upstream", [np.inf, -np.inf, np.nan, 1.0])
def test_cumprod_gradient_at_the_first_zero_stops_at_the_second(device, upstream):
    """cumprod's gradient at a slice's first zero sums grad[k] * prod(...) from that zero up
    to the second one only (PyTorch's O(n) case split): the terms past the second zero are 0
    in exact arithmetic, and an inf gradient there must not make a nan (minigrad summed them:
    inf * 0; found by the fuzzer, mixed theme)."""
    def scenario(lib, device):
        out = []
        for xv in ([0.0, 0.0], [0.0, 0.0, 3.0], [2.0, 0.0, 1.5, 0.0, 2.0],
                   [[0.0, 0.0], [1.0, 0.0]]):
            x = mk(lib, device, np.array(xv, np.float32), requires_grad=True)
            g = np.full(np.shape(xv), 1.0, np.float32)
            g[..., -1] = upstream
            x.cumprod(-1).backward(mk(lib, device, g))
            out.append(to_numpy(x.grad))
        return out
    assert_parity(scenario, device=device)


def test_adaptive_avg_pool2d_backward_refuses_empty_non_batch_dims(device):
    """adaptive_avg_pool2d of an input with an empty channel dim works forward; PyTorch's
    backward then refuses the empty grad_output (minigrad returned an empty gradient: found
    by the long fuzz profile, mixed theme). An empty batch is fine."""
    def scenario(lib, device):
        out = []
        for shape in ((2, 0, 2, 2), (0, 2, 3), (0, 1, 2, 2)):
            x = mk(lib, device, np.ones(shape, np.float32), requires_grad=True)
            y = lib.nn.functional.adaptive_avg_pool2d(x, 2)
            out.append((tuple(y.shape), err(lambda y=y: y.backward(lib.ones_like(y)))))
        return out
    assert_parity(scenario, device=device)


def test_in_place_history_on_an_integer_tensor(device):
    """fill_ / masked_fill_ / index_put_ (a bool mask and one value) cast a float operand that
    requires grad to an integer self, and PyTorch's rebase_history gives self their node all
    the same (copy_ does not); an op that makes an integer result from such a tensor raises
    "Autograd not support dtype", and so does the implicit or explicit backward from it
    (long profile, mixed theme: ``idx[idx > 0] = v`` with the int64 indices of max)."""
    def scenario(lib, device):
        v = mk(lib, device, np.array([1.5, 2.0], np.float32), requires_grad=True)
        s = mk(lib, device, np.array(2.5, np.float32), requires_grad=True)

        def made(write):
            t = mk(lib, device, np.array([3, 0, 2], np.int64))
            write(t)
            return t

        ops = {"fill_": lambda t: t.fill_(s), "masked_fill_": lambda t: t.masked_fill_(t > 0, s),
               "setitem_mask": lambda t: t.__setitem__(t > 0, v[:1]),
               "index_put_": lambda t: t.index_put_((t > 0,), v[:1]),
               "copy_": lambda t: t.copy_(v[:1].expand(3))}
        out = {}
        for name, write in ops.items():
            t = made(write)
            out[name] = (to_numpy(t), t.requires_grad, node_name(t.grad_fn), t._version)
        t = made(ops["setitem_mask"])
        out["errors"] = [err(f, "Autograd not support dtype", "real scalar", "isDifferentiable")
                         for f in (lambda: t * 2, lambda: t[0], lambda: t.max(0),
                                   lambda: t.sum(), lambda: t.view(3), lambda: t.sign(),
                                   lambda: t[:1].backward(),
                                   lambda: lib.autograd.backward([t], [lib.ones_like(t)]))]
        kept = [t == 1, t.argmax(), t.detach(), t.float(), t + v[:1].detach(), t.long()]
        out["kept"] = [(str(k.dtype).split(".")[-1], k.requires_grad, node_name(k.grad_fn))
                       for k in kept]
        plain = mk(lib, device, np.array([3, 0, 2], np.int64))
        out["out_of_place"] = [err(lambda: plain.index_put((plain > 0,), v[:1])),
                               to_numpy(plain.index_put((plain > 0,), v[:1].detach() * 3))]
        return out
    assert_parity(scenario, device=device)


VERSIONED = {  # op -> the gradient's _version is that of PyTorch's in-place formula
    "sort": lambda lib, x: x.sort(0)[0], "topk": lambda lib, x: x.topk(2, 1)[0],
    "kthvalue": lambda lib, x: x.kthvalue(1, 1)[0], "mode": lambda lib, x: x.mode(1)[0],
    "median": lambda lib, x: x.median(1)[0], "nanmedian": lambda lib, x: x.nanmedian(0)[0],
    "msort": lambda lib, x: x.msort(), "max_dim": lambda lib, x: x.max(1)[0],
    "sort_0dim": lambda lib, x: x[0, 0].sort(0)[0], "max_0dim": lambda lib, x: x[0, 0].max(0)[0],
    "gather": lambda lib, x: x.gather(1, lib.tensor(np.array([[0, 0], [1, 2]]))),
    "index_select": lambda lib, x: x.index_select(1, lib.tensor(np.array([0, 2]))),
    "take": lambda lib, x: x.take(lib.tensor(np.array([0, 4]))),
    "masked_select": lambda lib, x: x.masked_select(x > 0),
    "masked_select_broadcast": lambda lib, x: x[:1].masked_select(x > 0),
    "trace": lambda lib, x: x.trace(),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("op", list(VERSIONED))
def test_gradient_versions_of_in_place_formulas(device, op, create_graph):
    """PyTorch's formulas for these ops write their gradient in place (new zeros, then
    scatter_ / index_add_ / put_ / masked_scatter_ / index_fill_), so x.grad._version is 1 or
    2 after backward (session 9's long profile, mixed theme: sort); the graph under
    create_graph too."""
    def scenario(lib, device):
        a = np.array([[0.3, -1.2, 2.0], [1.1, 0.5, -0.7]], np.float32)
        x = mk(lib, device, a, requires_grad=True)
        y = VERSIONED[op](lib, x)
        seed = mk(lib, device, np.ones(y.shape, np.float32), requires_grad=create_graph)
        (g,) = lib.autograd.grad(y, x, seed * 1.0, create_graph=create_graph)
        y2 = VERSIONED[op](lib, x)
        y2.backward(lib.ones_like(y2))
        return {"grad": to_numpy(g), "version": g._version, "node": node_name(g.grad_fn),
                "leaf_grad_version": x.grad._version}
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("options", [{}, {"reduction": "none"}, {"reduction": "sum"},
                                     {"weight": 1}, {"pos_weight": 1},
                                     {"pos_weight": 1, "weight": 1, "reduction": "none"}])
def test_bce_with_logits_gradient_versions(device, options, create_graph):
    """binary_cross_entropy_with_logits: PyTorch's input gradient is built with in-place
    steps without grad mode (sub_, mul_ ...) and its mean divided in place in both modes;
    the target gradient keeps its in-place steps in both."""
    def scenario(lib, device):
        kw = dict(options)
        if "weight" in kw:
            kw["weight"] = mk(lib, device, np.full((2, 3), 0.5, np.float32))
        if "pos_weight" in kw:
            kw["pos_weight"] = mk(lib, device, np.array([2.0, 1.0, 0.5], np.float32))
        x = mk(lib, device, np.array([[0.3, -1.2, 2.0], [1.1, 0.5, -0.7]], np.float32),
               requires_grad=True)
        t = mk(lib, device, np.full((2, 3), 0.3, np.float32), requires_grad=True)
        y = lib.nn.functional.binary_cross_entropy_with_logits(x, t, **kw)
        gx, gt = lib.autograd.grad(y, (x, t), lib.ones_like(y), create_graph=create_graph)
        return {"values": [to_numpy(gx), to_numpy(gt)], "versions": [gx._version, gt._version],
                "nodes": [node_name(gx.grad_fn), node_name(gt.grad_fn)]}
    assert_parity(scenario, device=device)
