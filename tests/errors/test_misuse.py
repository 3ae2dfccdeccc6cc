"""Misuse corpus: every case fails the same way in minigrad and PyTorch, and changes nothing.

A case is a function of the library that builds some state (tensors, a model, an optimizer),
returns it with a ``misuse`` callable, and names the key phrase of PyTorch's message. For each
case and each library the test runs the misuse and checks:

- the exception type is PyTorch's, and the phrase (checked against live PyTorch's message) is
  in minigrad's message too;
- the state is unchanged: every tensor's values, ``.grad``, ``_version``, ``requires_grad`` and
  ``grad_fn``; a module's parameters and buffers with their ``.grad`` and ``_version``, its
  submodule names and training flag; an optimizer's hyperparameters and state.

Two kinds of case say otherwise (``changes=``), each with a docstring saying what changes:
``"partial"`` — PyTorch leaves partial state (an error raised mid-backward after some
gradients were accumulated, a rejected ``load_state_dict`` after the entries that matched were
copied) and minigrad must leave exactly the same state; ``"torch_only"`` —
a deliberate difference: PyTorch changes state before raising, minigrad validates first and
changes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad.parity import to_numpy

torch = pytest.importorskip("torch")

CASES: dict = {}


def case(name, exc, phrase, changes=None):
    """Register ``fn(L) -> (state, misuse)``; ``exc`` is PyTorch's exception type name;
    ``changes`` is None, ``"partial"`` or ``"torch_only"`` (see the module docstring)."""
    def deco(fn):
        CASES[name] = (fn, exc, phrase, changes)
        return fn
    return deco


def t(L, *shape, grad=True, seed=0, dtype="float32"):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return L.tensor(arr, requires_grad=grad)


def fixed(L, m):
    """``m`` with every parameter set to the same values in both libraries."""
    with L.no_grad():
        for i, p in enumerate(m.parameters()):
            n = int(np.prod(tuple(p.shape)))
            p.copy_(L.tensor(np.linspace(-1, 1 + i, n, dtype=np.float32).reshape(tuple(p.shape))))
    return m


def linear(L, i=3, o=2):
    """A Linear with fixed weights (same in both libraries)."""
    return fixed(L, L.nn.Linear(i, o))


def mlp(L):
    m = L.nn.Sequential(linear(L, 3, 4), L.nn.ReLU(), linear(L, 4, 2))
    m(t(L, 5, 3, grad=False)).sum().backward()  # every parameter has a .grad
    return m


# ------------------------------------------------------------------ state snapshots
def _tensor_state(x):
    if x is None:
        return None
    g = x.grad if (x.is_leaf or x.retains_grad) else None
    return {"value": to_numpy(x), "version": x._version, "requires_grad": x.requires_grad,
            "grad_fn": None if x.grad_fn is None else type(x.grad_fn).__name__,
            "grad": None if g is None else (to_numpy(g), g._version)}


def snapshot(obj):
    """Plain data describing ``obj`` (tensor, module, optimizer, or a list/dict of them)."""
    if isinstance(obj, (list, tuple)):
        return [snapshot(o) for o in obj]
    if isinstance(obj, dict):
        return {k: snapshot(v) for k, v in obj.items()}
    if hasattr(obj, "named_parameters"):  # a module
        return {"params": {k: _tensor_state(p) for k, p in obj.named_parameters()},
                "buffers": {k: _tensor_state(b) for k, b in obj.named_buffers()},
                "modules": [k for k, _ in obj.named_modules()], "training": obj.training}
    if hasattr(obj, "param_groups"):  # an optimizer
        return {"groups": [{k: (len(v) if k == "params" else v) for k, v in g.items()}
                           for g in obj.param_groups],
                "state": [{k: to_numpy(v) if hasattr(v, "shape") else v for k, v in s.items()}
                          for s in obj.state.values()]}
    if hasattr(obj, "grad_fn"):
        return _tensor_state(obj)
    return repr(obj)


def same(a, b, exact=True) -> bool:
    """Equal snapshots; arrays exactly (same library) or within float32 tolerance."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        return np.array_equal(a, b, equal_nan=True) if exact else np.allclose(
            a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k], exact) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, exact) for x, y in zip(a, b))
    return a == b


def run_case(L, fn):
    """``((exception type name, message) or None, state before, state after)``."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state, misuse = fn(L)
        before = snapshot(state)
        try:
            misuse()
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's
            err = (type(e).__name__, str(e))
        else:
            err = None
        return err, before, snapshot(state)


# ------------------------------------------------------------------ shapes, per op family
@case("add_shapes", "RuntimeError", "The size of tensor a (3) must match the size of tensor b "
      "(4) at non-singleton dimension 1")
def _(L):
    x, y = t(L, 2, 3), t(L, 2, 4)
    return [x, y], lambda: x + y


@case("inplace_broadcast_grows_self", "RuntimeError", "output with shape [3] doesn't match the "
      "broadcast shape [2, 3]")
def _(L):
    x = t(L, 3) * 1
    return [x], lambda: x.add_(t(L, 2, 3, grad=False))


@case("matmul_shapes", "RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
def _(L):
    x, w = t(L, 2, 3), t(L, 4, 5)
    return [x, w], lambda: x @ w


@case("bmm_batch", "RuntimeError", "Expected size for first two dimensions of batch2 tensor")
def _(L):
    a, b = t(L, 2, 3, 4), t(L, 3, 4, 5)
    return [a, b], lambda: L.bmm(a, b)


@case("cat_shapes", "RuntimeError", "Sizes of tensors must match except in dimension 0")
def _(L):
    a, b = t(L, 2, 3), t(L, 2, 4)
    return [a, b], lambda: L.cat([a, b])


@case("stack_shapes", "RuntimeError", "stack expects each tensor to be equal size")
def _(L):
    a, b = t(L, 2, 3), t(L, 3, 2)
    return [a, b], lambda: L.stack([a, b])


@case("view_numel", "RuntimeError", "shape '[5]' is invalid for input of size 6")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.view(5)


@case("view_non_contiguous", "RuntimeError", "view size is not compatible with input tensor's "
      "size and stride")
def _(L):
    x = t(L, 2, 3).t()
    return [x], lambda: x.view(6)


@case("expand_bad", "RuntimeError", "The expanded size of the tensor (4) must match the "
      "existing size (3) at non-singleton dimension 1")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.expand(2, 4)


@case("linear_in_features", "RuntimeError", "mat1 and mat2 shapes cannot be multiplied (5x4 "
      "and 3x2)")
def _(L):
    m = linear(L)
    return m, lambda: m(t(L, 5, 4))


@case("conv_channels", "RuntimeError", "expected input[1, 2, 5, 5] to have 3 channels, but got 2 "
      "channels instead")
def _(L):
    m = fixed(L, L.nn.Conv2d(3, 4, 3))
    return m, lambda: m(t(L, 1, 2, 5, 5))


@case("maxpool_too_small", "RuntimeError", "Output size is too small")
def _(L):
    x = t(L, 1, 1, 2, 2)
    return [x], lambda: L.nn.functional.max_pool2d(x, 3)


@case("mse_loss_shapes", "RuntimeError", "The size of tensor a (3) must match the size of "
      "tensor b (4) at non-singleton dimension 1")
def _(L):
    x, y = t(L, 2, 3), t(L, 2, 4, grad=False)
    return [x, y], lambda: L.nn.functional.mse_loss(x, y)


@case("cross_entropy_batch", "ValueError", "Expected input batch_size (4) to match target "
      "batch_size (3)")
def _(L):
    x = t(L, 4, 5)
    return [x], lambda: L.nn.functional.cross_entropy(x, L.tensor([0, 1, 2]))


@case("cross_entropy_target_range", "IndexError", "Target 7 is out of bounds.")
def _(L):
    x = t(L, 2, 5)
    return [x], lambda: L.nn.functional.cross_entropy(x, L.tensor([0, 7]))


@case("setitem_shape", "RuntimeError", "The expanded size of the tensor (3) must match the "
      "existing size (4) at non-singleton dimension 0")
def _(L):
    x = t(L, 2, 3, grad=False)
    return [x], lambda: x.__setitem__(0, L.ones(4))


@case("copy_shapes", "RuntimeError", "must match the size of tensor b (4)")
def _(L):
    x = t(L, 3, grad=False)
    return [x], lambda: x.copy_(L.ones(4))


@case("masked_fill_mask_shape", "RuntimeError", "The size of tensor a (2) must match the size "
      "of tensor b (3) at non-singleton dimension 1")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.masked_fill(L.ones(2, dtype=L.bool), 0.0)


# ------------------------------------------------------------------ dims
@case("sum_dim", "IndexError", "Dimension out of range (expected to be in range of [-2, 1], but "
      "got 2)")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.sum(2)


@case("softmax_dim", "IndexError", "Dimension out of range")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.softmax(-3)


@case("cat_dim", "IndexError", "Dimension out of range (expected to be in range of [-2, 1], but "
      "got 2)")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: L.cat([x, x], 2)


@case("repeated_dim", "RuntimeError", "dim 1 appears multiple times in the list of dims")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.sum((1, -1))


@case("permute_dims", "RuntimeError", "number of dimensions in the tensor input does not match "
      "the length of the desired ordering of dimensions")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: x.permute(1, 0, 2)


# ------------------------------------------------------------------ dtypes
@case("mm_dtypes", "RuntimeError", "expected m1 and m2 to have the same dtype, but got: float != "
      "double")
def _(L):
    x, w = t(L, 2, 3), t(L, 3, 2, dtype="float64")
    return [x, w], lambda: x @ w


@case("int_requires_grad", "RuntimeError", "only Tensors of floating point")
def _(L):
    x = L.tensor([1, 2, 3])
    return [x], lambda: x.requires_grad_()


@case("int_parameter", "RuntimeError", "Only Tensors of floating point and complex dtype can "
      "require gradients")
def _(L):
    m = linear(L)
    return m, lambda: setattr(m, "extra", L.nn.Parameter(L.tensor([1, 2])))


@case("index_float_tensor", "IndexError", "tensors used as indices must be long, int, byte or "
      "bool tensors")
def _(L):
    x = t(L, 3)
    return [x], lambda: x[L.tensor([0.0, 1.0])]


@case("mean_int", "RuntimeError", "mean(): could not infer output dtype")
def _(L):
    x = L.tensor([1, 2, 3])
    return [x], lambda: x.mean()


@case("cross_entropy_float_target_shape", "RuntimeError", "Expected floating point type for "
      "target with class probabilities, got Long")
def _(L):
    x = t(L, 2, 3)
    return [x], lambda: L.nn.functional.cross_entropy(x, L.tensor([[0, 1, 0], [1, 0, 0]]))


@case("grad_dtype_assign", "RuntimeError", "attempting to assign a gradient with dtype 'double' "
      "to a tensor with grad_dtype 'Float'")
def _(L):
    x = t(L, 3)
    return [x], lambda: setattr(x, "grad", L.zeros(3, dtype=L.float64))


@case("grad_shape_assign", "RuntimeError", "attempting to assign a gradient of size '[4]' to a "
      "tensor of size '[3]'")
def _(L):
    x = t(L, 3)
    return [x], lambda: setattr(x, "grad", L.zeros(4))


# ------------------------------------------------------------------ indexing
@case("index_out_of_range", "IndexError", "index 3 is out of bounds for dimension 0 with size 3")
def _(L):
    x = t(L, 3, 2)
    return [x], lambda: x[3]


@case("select_out_of_range", "IndexError", "select(): index 5 out of range for tensor of size "
      "[3, 2] at dimension 0")
def _(L):
    x = t(L, 3, 2)
    return [x], lambda: x.select(0, 5)


@case("index_list_out_of_range", "IndexError", "index 4 is out of bounds for dimension 0 with "
      "size 3")
def _(L):
    x = t(L, 3, 2)
    return [x], lambda: x[[0, 4]]


@case("setitem_out_of_range", "IndexError", "index 3 is out of bounds for dimension 0 with "
      "size 3")
def _(L):
    x = t(L, 3, grad=False)
    return [x], lambda: x.__setitem__(3, 1.0)


@case("narrow_out_of_range", "RuntimeError", "start (2) + length (2) exceeds dimension size (3)")
def _(L):
    x = t(L, 3)
    return [x], lambda: x.narrow(0, 2, 2)


# ------------------------------------------------------------------ autograd misuse
@case("backward_twice", "RuntimeError", "Trying to backward through the graph a second time")
def _(L):
    x = t(L, 3)
    y = (x.exp() * x).sum()
    y.backward()
    return [x], y.backward


@case("inplace_on_leaf", "RuntimeError", "a leaf Variable that requires grad is being used in an "
      "in-place operation.")
def _(L):
    x = t(L, 3)
    return [x], lambda: x.mul_(2)


@case("inplace_on_view_of_leaf", "RuntimeError", "a view of a leaf Variable that requires grad is "
      "being used in an in-place operation.")
def _(L):
    x = t(L, 3)
    return [x], lambda: x[:2].zero_()


@case("stale_saved_tensor", "RuntimeError", "one of the variables needed for gradient "
      "computation has been modified by an inplace operation")
def _(L):
    x = t(L, 3)
    h = x * 1
    y = (h.sigmoid() * 2).sum()
    with L.no_grad():
        h.mul_(2)  # h's own values, not what sigmoid saved
    s = h.sigmoid()
    s.mul_(3)
    loss = s.sum()
    del y
    return [x, h, s], loss.backward


@case("non_scalar_backward", "RuntimeError", "grad can be implicitly created only for scalar "
      "outputs")
def _(L):
    x = t(L, 3)
    y = x * 2
    return [x, y], y.backward


@case("backward_no_grad", "RuntimeError", "element 0 of tensors does not require grad and does "
      "not have a grad_fn")
def _(L):
    x = t(L, 3, grad=False)
    return [x], x.sum().backward


@case("backward_gradient_shape", "RuntimeError", "Mismatch in shape: grad_output[0] has a shape "
      "of")
def _(L):
    x = t(L, 3)
    y = x * 2
    return [x, y], lambda: y.backward(L.ones(4))


@case("grad_unused_input", "RuntimeError", "The differentiated Tensor at index 1 appears to not "
      "have been used in the graph")
def _(L):
    x, w = t(L, 3), t(L, 3, seed=1)
    return [x, w], lambda: L.autograd.grad((x * 2).sum(), [x, w])


@case("retain_grad_no_grad", "RuntimeError", "can't retain_grad on Tensor that has "
      "requires_grad=False")
def _(L):
    x = t(L, 3, grad=False)
    return [x], x.retain_grad


@case("requires_grad_false_non_leaf", "RuntimeError", "you can only change requires_grad flags "
      "of leaf variables.")
def _(L):
    x = t(L, 3)
    y = x * 2
    return [x, y], lambda: y.requires_grad_(False)


@case("numpy_requires_grad", "RuntimeError", "Can't call numpy() on Tensor that requires grad. "
      "Use tensor.detach().numpy() instead.")
def _(L):
    x = t(L, 3)
    return [x], x.numpy


@case("item_many", "RuntimeError", "a Tensor with 3 elements cannot be converted to Scalar")
def _(L):
    x = t(L, 3)
    return [x], x.item


# ------------------------------------------------------------------ hooks
@case("tensor_hook_wrong_shape", "RuntimeError", "hook 'bad' has changed the size of value")
def _(L):
    x = t(L, 3)
    y = x * 2

    def bad(g):
        return g.sum()

    y.register_hook(bad)
    loss = y.sum()
    return [x, y], loss.backward


@case("hook_on_no_grad_tensor", "RuntimeError", "cannot register a hook on a tensor that doesn't "
      "require gradient")
def _(L):
    x = t(L, 3, grad=False)
    return [x], lambda: x.register_hook(lambda g: g)


@case("module_backward_hook_wrong_count", "RuntimeError", "Backward hook returned an invalid "
      "number of grad_input, got 2, but expected 1", changes="partial")
def _(L):
    """The last layer's gradients are accumulated before the first layer's hook fails."""
    m = mlp(L)
    m[0].register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    x = t(L, 5, 3)
    loss = m(x).sum()
    return [m, x], loss.backward


# ------------------------------------------------------------------ modules
@case("load_state_dict_missing", "RuntimeError", "Missing key(s) in state_dict: \"2.bias\".",
      changes="partial")
def _(L):
    """PyTorch copies every entry it has before it reports the missing key; minigrad too."""
    m = mlp(L)
    sd = {k: v.clone() for k, v in m.state_dict().items() if k != "2.bias"}
    sd["0.weight"] = sd["0.weight"] + 1
    return m, lambda: m.load_state_dict(sd)


@case("load_state_dict_unexpected", "RuntimeError", "Unexpected key(s) in state_dict: "
      "\"3.weight\".", changes="partial")
def _(L):
    """PyTorch loads the known entries, then reports the unexpected one; minigrad too."""
    m = mlp(L)
    sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
    sd["3.weight"] = L.ones(2)
    return m, lambda: m.load_state_dict(sd)


@case("load_state_dict_shape", "RuntimeError", "size mismatch for 2.weight: copying a param with "
      "shape", changes="partial")
def _(L):
    """PyTorch copies the entries that match before it raises; minigrad too."""
    m = mlp(L)
    sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
    sd["2.weight"] = L.ones(3, 4)
    return m, lambda: m.load_state_dict(sd)


@case("module_wrong_arity", "TypeError", "forward() takes 2 positional arguments but 3 were "
      "given")
def _(L):
    m = linear(L)
    return m, lambda: m(t(L, 2, 3), t(L, 2, 3))


@case("assign_tensor_to_parameter", "TypeError", "cannot assign 'torch.FloatTensor' as parameter "
      "'weight' (torch.nn.Parameter or None expected)")
def _(L):
    m = linear(L)
    return m, lambda: setattr(m, "weight", L.ones(2, 3))


@case("buffer_name_dot", "KeyError", "contain \".\"")
def _(L):
    m = linear(L)
    return m, lambda: m.register_buffer("a.b", L.zeros(2))


@case("add_module_not_module", "TypeError", "is not a Module subclass")
def _(L):
    m = linear(L)
    return m, lambda: m.add_module("extra", 3)


@case("sequential_index", "IndexError", "index 3 is out of range")
def _(L):
    m = mlp(L)
    return m, lambda: m[3]


# ------------------------------------------------------------------ optimizers
@case("optimizer_empty", "ValueError", "optimizer got an empty parameter list")
def _(L):
    m = mlp(L)
    return m, lambda: L.optim.SGD([], lr=0.1)


@case("optimizer_non_leaf", "ValueError", "can't optimize a non-leaf Tensor")
def _(L):
    m = mlp(L)
    return m, lambda: L.optim.SGD([m[0].weight * 2], lr=0.1)


@case("optimizer_tensor_not_iterable", "TypeError", "params argument given to the optimizer "
      "should be an iterable of Tensors or dicts")
def _(L):
    m = mlp(L)
    return m, lambda: L.optim.Adam(m[0].weight, lr=0.1)


@case("optimizer_bad_lr", "ValueError", "Invalid learning rate: -0.1")
def _(L):
    m = mlp(L)
    return m, lambda: L.optim.SGD(m.parameters(), lr=-0.1)


@case("optimizer_duplicate_group", "ValueError", "some parameters appear in more than one "
      "parameter group")
def _(L):
    m = mlp(L)
    opt = L.optim.SGD(m.parameters(), lr=0.1)
    return [m, opt], lambda: opt.add_param_group({"params": [m[0].weight]})


def _str(p):
    return p.replace("torch.", "minigrad.")


@pytest.mark.parametrize("name", list(CASES))
def test_misuse(name):
    fn, exc, phrase, changes = CASES[name]
    (t_err, t_before, t_after), (m_err, m_before, m_after) = run_case(torch, fn), \
        run_case(minigrad, fn)
    assert t_err is not None, f"PyTorch raised nothing: the case {name} is wrong"
    assert t_err[0] == exc, f"PyTorch raised {t_err}, the case expects {exc}"
    assert phrase in t_err[1], f"phrase {phrase!r} not in PyTorch's message {t_err[1]!r}"
    assert m_err is not None, f"minigrad raised nothing; PyTorch raised {t_err}"
    assert m_err[0] == exc, f"minigrad raised {m_err}; PyTorch {t_err}"
    assert phrase in m_err[1] or _str(phrase) in m_err[1], \
        f"phrase {phrase!r} not in minigrad's message {m_err[1]!r}"
    assert same(m_before, t_before, exact=False), "the two libraries built different states"
    if changes == "partial":
        assert not same(t_before, t_after), "PyTorch changed nothing: remove changes='partial'"
        assert same(m_after, t_after, exact=False), "minigrad's partial state is not PyTorch's"
        return
    assert same(m_before, m_after), "minigrad changed the state before raising"
    if changes == "torch_only":
        assert not same(t_before, t_after), "PyTorch changed nothing: remove changes="
    else:
        assert same(t_before, t_after), "PyTorch changed the state: say how with changes="


def test_corpus_size():
    assert len(CASES) >= 40
