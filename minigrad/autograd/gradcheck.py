"""``gradcheck`` / ``gradgradcheck``: compare autograd's gradients with finite differences.

Mirrors ``torch/autograd/gradcheck.py`` (the default "slow" mode): for every input that requires
grad, the *numerical* Jacobian is built column by column with central differences
``(f(x + eps) - f(x - eps)) / (2 eps)``, the *analytical* one row by row with
``autograd.grad`` and one-hot ``grad_outputs``; they must agree within
``allclose(analytical, numerical, rtol, atol)``. Then, as PyTorch does, gradcheck checks that
the backward pass is deterministic ("reentrant"), multiplies by ``grad_output`` (zero in, zero
out) and copes with undefined (None) output gradients. Use float64 inputs: the default
tolerances (``eps=1e-6, atol=1e-5, rtol=1e-3``) are PyTorch's and assume double precision.

Jacobians are laid out as PyTorch prints them: ``(input numel, output numel)``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .graph import Node, record

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by `gradcheck` / `gradgradcheck` when a check fails
    (``torch.autograd.gradcheck.GradcheckError``, a ``RuntimeError``)."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_tensor(x) -> bool:
    from .._tensor import Tensor

    return isinstance(x, Tensor)


def _diff_inputs(inputs) -> list:
    return [x for x in inputs if _is_tensor(x) and x.requires_grad]


def _differentiable_outputs(out) -> tuple:
    return tuple(o for o in _as_tuple(out) if _is_tensor(o) and o.requires_grad)


def _check_inputs(inputs) -> None:
    """Warn about non-double inputs, refuse overlapping ones, require one that needs grad."""
    from .._ops._util import internal_overlap

    found = False
    for idx, x in enumerate(inputs):
        if not (_is_tensor(x) and x.requires_grad):
            continue
        if x._data.dtype != np.float64:
            warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=3)
        if internal_overlap(x._data):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _numerical_jacobians(func, inputs, eps) -> list:
    """``jac[i][k]``: array ``(numel of diff input i, numel of output k)``, in output k's dtype,
    for *every* output of ``func`` (non-differentiable ones included, as PyTorch)."""
    jacobians = []
    for x in _diff_inputs(inputs):
        arr = x._data  # perturbed in place: no version bump, no graph
        cols = None
        for flat in range(arr.size):
            idx = np.unravel_index(flat, arr.shape)
            orig = arr[idx].copy()
            arr[idx] = orig - eps
            lo = [_values(o) for o in _as_tuple(func(*inputs))]
            arr[idx] = orig + eps
            hi = [_values(o) for o in _as_tuple(func(*inputs))]
            arr[idx] = orig
            rows = [((b - a) / (2 * eps)).reshape(-1) for a, b in zip(lo, hi)]
            if cols is None:  # in each output's dtype, as PyTorch
                cols = [np.zeros((arr.size, r.size), dtype=r.dtype) for r in rows]
            for jac, r in zip(cols, rows):
                jac[flat] = r
        jacobians.append(cols or [])
    return jacobians


def _values(o) -> np.ndarray:
    return np.array(o._data if _is_tensor(o) else o, dtype=None if _is_tensor(o) else np.float64)


def _analytical_jacobian(output, diff_inputs, nondet_tol, check_grad_dtypes) -> list:
    """One ``(numel of input, numel of output)`` array per diff input, from one-hot backward
    passes (each done twice to check that backward is deterministic)."""
    from .._tensor import Tensor
    from . import grad as autograd_grad

    def rows():
        jac = [np.zeros((x.numel(), output.numel()), dtype=x._data.dtype) for x in diff_inputs]
        types_ok = sizes_ok = True
        for j in range(output.numel()):
            onehot = np.zeros(output.numel(), dtype=output._data.dtype)
            onehot[j] = 1
            seed = Tensor._make(onehot.reshape(output.shape))
            grads = autograd_grad(output, diff_inputs, seed, retain_graph=True,
                                  allow_unused=True)
            for i, (g, x) in enumerate(zip(grads, diff_inputs)):
                if g is None:
                    continue
                if g.dtype != x.dtype:
                    types_ok = False
                if g.numel() != x.numel():
                    sizes_ok = False
                    continue
                jac[i][:, j] = g._data.reshape(-1)
        return jac, types_ok, sizes_ok

    first, types_ok, sizes_ok = rows()
    second, _, _ = rows()
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if any(np.max(np.abs(a - b), initial=0.0) > nondet_tol for a, b in zip(first, second)):
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.")
    return first


def _mismatch_message(analytical, numerical, out_idx: int, in_idx: int) -> str:
    from .._tensor import Tensor

    return (f"Jacobian mismatch for output {out_idx:d} with respect to input {in_idx:d},\n"
            f"numerical:{Tensor._make(numerical)}\nanalytical:{Tensor._make(analytical)}\n")


def _check_backward_multiplies_grad_output(outputs, diff_inputs) -> None:
    """Zero ``grad_outputs`` must give zero gradients of the inputs' dtype and size."""
    from .._tensor import Tensor
    from . import grad as autograd_grad

    zeros = [Tensor._make(np.zeros(o.shape, dtype=o._data.dtype)) for o in outputs]
    grads = autograd_grad(outputs, diff_inputs, zeros, allow_unused=True)
    for g, x in zip(grads, diff_inputs):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


class UndefinedGradBackward(Node):
    """z = self (a copy) whose backward sends *no* gradient (None) to ``self``: how gradcheck
    tests that backward functions cope with undefined output gradients. ``name()`` is
    ``torch::autograd::UndefinedGradBackward``. Saves nothing."""

    def name(self) -> str:
        return "torch::autograd::UndefinedGradBackward"

    def backward(self, g):
        return (None,)


def _undefined_grad(t):
    from .._tensor import Tensor

    out = Tensor._make(t._data.copy())
    record(UndefinedGradBackward, out, (t,))
    return out


def _check_undefined_grad(func, inputs, diff_inputs) -> None:
    """Backward must work, and give zero (or no) input gradients, when the output gradients
    are undefined: all of them at once, and (with several outputs) each one in turn."""
    from .._tensor import Tensor
    from . import grad as autograd_grad

    def bc_warning():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature "
                      "is enabled by default, but it may break existing callers of this "
                      "function. If this is true for you, you can call this function with "
                      "\"check_undefined_grad=False\" to disable the feature", stacklevel=4)

    cases = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(cases[0]) > 1:
        for k in range(len(cases[0])):
            outs = _differentiable_outputs(func(*inputs))
            cases.append([_undefined_grad(o) if i == k else o for i, o in enumerate(outs)])
    for outs in cases:
        zeros = [Tensor._make(np.zeros(o.shape, dtype=o._data.dtype)) for o in outs]
        try:
            grads = autograd_grad(outs, diff_inputs, zeros, allow_unused=True)
        except RuntimeError as e:
            bc_warning()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                "\"Notes about undefined output gradients\" in "
                "\"tools/autograd/derivatives.yaml\"") from e
        if any(g is not None and np.any(g._data != 0) for g in grads):
            bc_warning()
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                "undefined or zero. Please look at \"Notes about undefined output gradients\" "
                "in \"tools/autograd/derivatives.yaml\"")


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes) -> bool:
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    outputs = _differentiable_outputs(func_out)
    diff_inputs = _diff_inputs(inputs)
    numerical = _numerical_jacobians(func, inputs, eps)
    if not outputs:
        if any(np.any(jac != 0) for per_input in numerical for jac in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    keep = [k for k, o in enumerate(func_out) if _is_tensor(o) and o.requires_grad]
    for out_idx, output in enumerate(outputs):
        analytical = _analytical_jacobian(output, diff_inputs, nondet_tol, check_grad_dtypes)
        for in_idx, a in enumerate(analytical):
            n = numerical[in_idx][keep[out_idx]]
            if not np.allclose(a.astype(np.float64), n.astype(np.float64), rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch_message(a, n, out_idx, in_idx))
    _check_backward_multiplies_grad_output(outputs, diff_inputs)
    if check_undefined_grad:
        _check_undefined_grad(func, inputs, diff_inputs)
    return True


def _forward_jacobians(func, inputs, check_grad_dtypes) -> list:
    """``jac[i][k]``: array ``(numel of diff input i, numel of float output k)`` from forward
    AD (PyTorch's ``_get_analytical_jacobian_forward_ad``): in a dual level every input that
    requires grad becomes a dual with a zero tangent, and each column is one call of ``func``
    with a one-hot tangent."""
    from .._creation import zeros_like
    from . import forward_ad as fwAD

    jacobians = []
    with fwAD.dual_level():
        duals, tangents = [], []
        for x in inputs:
            if _is_tensor(x) and x.requires_grad:
                x = fwAD.make_dual(x.detach(), zeros_like(x))
                tangents.append(fwAD.unpack_dual(x).tangent)
            duals.append(x)
        for tangent in tangents:
            arr = tangent._data  # (written in place, as PyTorch's fw_grad[idx] = 1)
            cols = None
            for flat in range(arr.size):
                idx = np.unravel_index(flat, arr.shape)
                arr[idx] = 1
                outs = [o for o in _as_tuple(func(*duals))
                        if _is_tensor(o) and o.is_floating_point()]
                arr[idx] = 0
                if cols is None:
                    cols = [np.zeros((arr.size, o.numel()), dtype=o._data.dtype) for o in outs]
                for jac, o in zip(cols, outs):
                    value, res = fwAD.unpack_dual(o)
                    if check_grad_dtypes and res is not None and value.dtype != res.dtype:
                        raise GradcheckError("Forward AD gradient has dtype mismatch.")
                    jac[flat] = 0 if res is None else res._data.reshape(-1)
            jacobians.append(cols or [])
    return jacobians


def _gradcheck_forward(func, inputs, eps, atol, rtol, check_grad_dtypes) -> bool:
    """The forward-AD half of `gradcheck`: each Jacobian from forward AD against the
    numerical one ("Jacobian computed with forward mode mismatch ...")."""
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    numerical = _numerical_jacobians(func, inputs, eps)
    floats = [k for k, o in enumerate(func_out) if _is_tensor(o) and o.is_floating_point()]
    if not _differentiable_outputs(func_out):
        if any(np.any(jac != 0) for per_input in numerical for jac in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    analytical = _forward_jacobians(func, inputs, check_grad_dtypes)
    for in_idx, per_out in enumerate(analytical):
        for out_idx, a in enumerate(per_out):
            n = numerical[in_idx][floats[out_idx]]
            if not np.allclose(a.astype(np.float64), n.astype(np.float64), rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch_message(a, n, out_idx, in_idx).replace(
                    "Jacobian mismatch", "Jacobian computed with forward mode mismatch", 1))
    return True


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked=None) -> bool:
    """Check the gradients of ``func(*inputs)`` against finite differences
    (``torch.autograd.gradcheck``).

    ``func`` takes the tensors (and other values) of ``inputs`` (a Tensor or a tuple) and
    returns a Tensor or a tuple of Tensors; every input with ``requires_grad=True`` is checked
    against every output that requires grad. Returns True; on a failed check raises
    `GradcheckError` (a RuntimeError: ``"Jacobian mismatch for output i with respect to
    input j, numerical: ... analytical: ..."``, ``"backward not multiplied by grad_output"``, ...)
    or, with ``raise_exception=False``, returns False. ValueError when no input requires grad;
    UserWarning for inputs that are not float64. ``check_forward_ad=True`` also compares the
    Jacobian from forward-mode AD (one dual-level call per input element, a one-hot tangent)
    with the numerical one ("Jacobian computed with forward mode mismatch ..."; PyTorch's check
    of undefined tangents is not made); ``check_backward_ad=False`` skips the backward check.
    The batched checks (vmap) raise NotImplementedError; ``fast_mode`` runs the full check
    (same outcome, slower).

    Raises:
        AssertionError: neither ``check_forward_ad`` nor ``check_backward_ad`` (PyTorch's).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to "
                             "be True")
    if check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("minigrad.autograd.gradcheck has no batched checks (they "
                                  "need vmap)")
    inputs = _as_tuple(inputs)
    try:
        if check_backward_ad:
            _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                       check_grad_dtypes)
        if check_forward_ad:
            _gradcheck_forward(func, inputs, eps, atol, rtol, check_grad_dtypes)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives of ``func`` (``torch.autograd.gradgradcheck``).

    Runs `gradcheck` on ``(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs,
    grad_outputs, create_graph=True)``, i.e. it differentiates the backward pass. Without
    ``grad_outputs``, random ones in ``[-1, 1)`` that require grad are drawn (minigrad's
    generator, so ``manual_seed`` makes them reproducible). Returns / raises as
    `gradcheck`.
    """
    from .._creation import default_generator
    from .._tensor import Tensor
    from . import grad as autograd_grad

    if check_fwd_over_rev or check_batched_grad or not check_rev_over_rev:
        raise NotImplementedError("minigrad.autograd.gradgradcheck only checks reverse over "
                                  "reverse mode")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*inputs))
        grad_outputs = tuple(
            Tensor._make(default_generator().uniform(-1, 1, o.shape).astype(
                o._data.dtype if o.is_floating_point() else np.float64)).requires_grad_()
            for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_idx = [i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]

    def first_derivatives(*args):
        ins, gos = args[:-n_out], args[-n_out:]
        outs = _differentiable_outputs(func(*ins))
        grads = autograd_grad(outs, [ins[i] for i in diff_idx], gos, create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode, masked=masked)
