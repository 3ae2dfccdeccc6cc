"""Autograd as a function: `vjp`, `jvp`, `jacobian`, `hessian`, `vhp` and `hvp`.

Mirrors ``torch/autograd/functional.py``. Every function here takes a Python function ``func``
of one or more tensors and the point ``inputs`` at which to differentiate it, and builds the
answer out of ordinary reverse-mode calls to `minigrad.autograd.grad`:

* `vjp`: one backward pass, seeded with ``v`` (shaped like the outputs);
* `jvp`: the *double-backward trick*. ``u -> vjp(u)`` is linear in ``u``, so differentiating
  it with respect to ``u`` (seeded with ``v``, shaped like the inputs) gives ``J @ v``. The
  ``u`` used is a zero tensor that requires grad: only the graph of the first backward matters;
* `jacobian`: one backward pass per output element (row by row), stacked;
* `hessian`: the `jacobian` of the (graph-keeping) `jacobian` of a scalar function;
* `vhp`: ``v @ H``, a backward pass through the first backward;
* `hvp`: ``H @ v``, the double-backward trick applied to the gradient.

Inputs and outputs may be a tensor or a tuple of tensors, and the result's structure follows
theirs exactly as in PyTorch: a tensor where the user gave a tensor, a tuple where they gave a
tuple (for `jacobian`, a tuple of tuples indexed ``[output][input]`` when both are tuples).

``vectorize=True`` (PyTorch runs the backward passes of `jacobian`/`hessian` at once under
``vmap``, which minigrad has not got) gives the same results here, computed one pass at a
time. ``strategy="forward-mode"`` (with ``vectorize=True``, as PyTorch requires) computes the
Jacobian by forward-mode AD (`minigrad.autograd.forward_ad`), one dual-level pass per input
element; ``hessian(..., outer_jacobian_strategy="forward-mode")`` is forward over reverse.
PyTorch's errors for the combinations it refuses are raised here too.
"""

from __future__ import annotations

from contextlib import nullcontext

from . import grad_mode

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

def _tensor_cls():
    from .._tensor import Tensor

    return Tensor


# ------------------------------------------------------------------------------ helpers
def _as_tuple(value, arg_name: str, fn_name: str):
    """``(was it a tuple, value as a tuple)``; TypeError naming ``arg_name`` for a non-tensor."""
    Tensor = _tensor_cls()
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = (f"the value at index {i} has type {type(item)}" if was_tuple
                     else f"the given {arg_name} has type {type(item)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return was_tuple, items


def _restructure(result, was_tuple):
    """Undo `_as_tuple`: ``was_tuple`` is one flag, or ``(outer, inner)`` for nested results
    (`jacobian`, `hessian`): a level that was not a tuple is replaced by its only element."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _prepare(tensors, create_graph: bool, need_graph: bool) -> tuple:
    """The tensors ``func`` is called with. With ``create_graph`` an input that requires grad
    is passed as a view of itself (``ViewBackward0``), so the result stays connected to the
    caller's graph; otherwise a detached copy, which requires grad when ``need_graph``."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph: bool) -> tuple:
    """Results as returned to the user: detached unless ``create_graph`` (nested tuples too)."""
    Tensor = _tensor_cls()
    if isinstance(tensors[0], Tensor):
        return tensors if create_graph else tuple(t.detach() for t in tensors)
    return tuple(_finish(t, create_graph) for t in tensors)


def _check_v(v, like, like_is_tuple: bool) -> None:
    """``v`` must have one tensor per entry of ``like``, each of the same size (RuntimeError)."""
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, like)):
        if a.size() != b.size():
            where = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
}


def _check_requires_grad(tensors, kind: str, strict: bool) -> None:
    """In strict mode, every entry must exist and require grad (RuntimeError per ``kind``)."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None) -> tuple:
    """`minigrad.autograd.grad` over the outputs that require grad only, with
    ``allow_unused=True``: an input no output depends on gets None (all None if no output
    requires grad)."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    outs, gouts = zip(*kept)
    return grad(outs, inputs, gouts, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _zeros_for_none(grads, like, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Replace a None gradient by zeros shaped like ``like[i]`` (RuntimeError in strict mode;
    also, with ``create_graph``, for a gradient that does not require grad)."""
    from .. import zeros_like

    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _v_or_default(v, like, like_is_tuple, create_graph, fn_name, default_msg):
    """Check ``v`` against ``like`` (or that ``like`` is one single-element tensor when
    ``v`` is None, RuntimeError ``default_msg``); return it prepared (detached)."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _prepare(v, create_graph=create_graph, need_graph=False)
        _check_v(v, like, like_is_tuple)
        return v
    if len(like) != 1 or like[0].nelement() != 1:
        raise RuntimeError(default_msg)
    return None


_V_INPUT_MSG = ("The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element.")


# ------------------------------------------------------------------------------ vjp / jvp
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Jacobian product ``v @ J`` of ``func`` at ``inputs``.

    As ``torch.autograd.functional.vjp``: one backward pass seeded with ``v``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, ``func``'s arguments.
        v: shaped like ``func``'s output(s); may be omitted when ``func`` returns one
            single-element tensor (then it is 1).
        create_graph: keep the graph of the computation, so the results can be differentiated
            (the results then require grad if they depend on an input that does).
        strict: raise instead of returning zeros for an input no output depends on.

    Returns:
        `(func_output, vjp)`: the output(s) of ``func`` and the product, shaped like the
        input(s), with the same tensor-or-tuple structure as ``inputs``.

    Raises:
        TypeError: an input, output or ``v`` entry is not a tensor.
        RuntimeError: ``v`` of the wrong length or size, ``v`` omitted for a non-scalar output,
            or (``strict=True``) an output that does not require grad or an unused input.
    """
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _v_or_default(v, outputs, outputs_tuple, create_graph, "vjp",
                          "The vector v can only be None if the user-provided function returns "
                          "a single Tensor with a single element.")
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "back")
    return (_restructure(_finish(outputs, create_graph), outputs_tuple),
            _restructure(_finish(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Jacobian-vector product ``J @ v`` of ``func`` at ``inputs``.

    As ``torch.autograd.functional.jvp``, with the double-backward trick: ``g(u) = u @ J`` is
    found by one backward pass seeded with ``u`` (zeros that require grad) and kept as a
    graph; ``g`` is linear in ``u``, so a second backward pass through it, seeded with ``v``,
    gives ``d(u @ J . v)/du = J @ v``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, ``func``'s arguments.
        v: shaped like the input(s); may be omitted when there is one single-element input.
        create_graph: keep the graph, so the results can be differentiated.
        strict: raise instead of returning zeros where the output does not depend on an input.

    Returns:
        `(func_output, jvp)`: both shaped like, and structured as, ``func``'s output(s).

    Raises:
        TypeError: an input, output or ``v`` entry is not a tensor.
        RuntimeError: ``v`` of the wrong length or size, ``v`` omitted for a non-scalar input,
            or a ``strict=True`` violation.
    """
    from .. import zeros_like

    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, "jvp", _V_INPUT_MSG)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(True) if create_graph else nullcontext():
        grads = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _zeros_for_none(grads, outputs, strict, create_graph, "back_trick")
    return (_restructure(_finish(outputs, create_graph), outputs_tuple),
            _restructure(_finish(result, create_graph), outputs_tuple))


# ------------------------------------------------------------------------------ jacobian
def _stack(parts, dim=0):
    """``stack(parts, dim)``; inside a dual level (a forward-over-reverse Hessian runs its inner
    Jacobian in one) its tangent is the stack of the parts' tangents, set here, so that the
    Jacobians of `minigrad.func` and of this module need no forward formula beyond those of
    the function's ops."""
    from .. import stack, zeros_like
    from . import forward_ad as F
    from . import graph

    if not graph.fw_on:
        return stack(parts, dim)
    graph.fw_on = False
    try:
        out = stack(parts, dim)
        tangents = [F.fw_grad(p) for p in parts]
        if any(t is not None for t in tangents):
            tangent = stack(
                [zeros_like(p) if t is None else t for p, t in zip(parts, tangents)], dim
            )
        else:
            tangent = None
    finally:
        graph.fw_on = True
    if tangent is not None:
        F.set_fw_grad(out, tangent)
    return out


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (``torch.autograd.functional.jacobian``).

    One backward pass per element of each output (``retain_graph=True``): row ``j`` of the
    Jacobian of output ``i`` is the gradient of ``output_i.reshape(-1)[j]``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, ``func``'s arguments.
        create_graph: keep the graph, so the Jacobian can be differentiated (see `hessian`).
        strict: raise instead of returning zeros where an output does not depend on an input.
        vectorize: PyTorch's vmap switch; here the same rows, computed one by one (required
            by ``strategy="forward-mode"``, as in PyTorch).
        strategy: ``"reverse-mode"`` (one backward pass per output element) or
            ``"forward-mode"`` (one forward-AD pass per input element; ``func`` then gets dual
            tensors, the result is not detached and has the outputs' dtype, as PyTorch's).

    Returns:
        For output ``i`` (shape ``O_i``) and input ``j`` (shape ``I_j``) a tensor of shape
        ``O_i + I_j``: a tensor for one output and one input, a tuple over the inputs for one
        output, a tuple over the outputs for one input, else a tuple of tuples
        ``[output][input]``.

    Raises:
        AssertionError: ``strategy`` is neither ``"forward-mode"`` nor ``"reverse-mode"``
            (as PyTorch).
        NotImplementedError: ``strategy="forward-mode"`` with ``create_graph=True`` or with
            ``vectorize=False`` (PyTorch's messages); an op of ``func`` without a forward
            formula (forward mode).
        RuntimeError: ``strict=True`` together with ``vectorize=True`` or
            ``strategy="forward-mode"`` (PyTorch's messages), or a ``strict=True`` violation.
        TypeError: an input or output is not a tensor.
    """
    from .. import zeros_like

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "minigrad.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "minigrad.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        if not vectorize:  # (PyTorch's own answer: its forward mode needs vmap)
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`.")
        return _jacobian_forward(func, inputs, inputs_tuple)

    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "minigrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                "are not supported together. Please either set `strict=False` or "
                "`vectorize=False`.")
        # (vectorize=True: PyTorch does the backward passes at once under vmap; minigrad does
        # them one by one below, with the same results)

        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]  # rows[k]: d out.flat[j] / d inputs[k], for every j
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                grads = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode.")
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True.")
                    rows[k].append(g)
            jac.append(tuple(_stack(r, dim=0).view(out.size() + inputs[k].size())
                             for k, r in enumerate(rows)))
        jac = _finish(tuple(jac), create_graph)
        return _restructure(jac, (outputs_tuple, inputs_tuple))


def _jacobian_forward(func, inputs, inputs_tuple):
    """`jacobian` with ``strategy="forward-mode"``: column ``e`` of the Jacobian with respect to
    input ``j`` is the tangent of the outputs when input ``j`` carries the one-hot tangent
    ``e`` (and the others zero ones), in a `forward_ad.dual_level`. PyTorch pushes all the
    one-hot tangents at once under vmap; minigrad calls ``func`` once per input element (so
    ``func`` runs ``sum(numel)`` times). As PyTorch's: the inputs are used as given (no
    detaching, no grad mode change), and the result is not detached (its dtype is the
    outputs')."""
    from .. import zeros
    from . import forward_ad as fwAD

    def run(tangents):
        with fwAD.dual_level():
            duals = tuple(fwAD.make_dual(inp, t) for inp, t in zip(inputs, tangents))
            outputs_tuple, outputs = _as_tuple(func(*duals), "outputs", None)
            primals, jv = [], []
            for out in outputs:
                primal, tangent = fwAD.unpack_dual(out)
                primals.append(primal)
                jv.append(zeros(primal.shape, dtype=primal.dtype) if tangent is None
                          else tangent)
        return outputs_tuple, primals, jv

    columns = []  # columns[j][e]: the output tangents for element e of input j
    info = None
    for j, inp in enumerate(inputs):
        cols = []
        for e in range(inp.numel()):
            tangents = [zeros(t.shape, dtype=t.dtype) for t in inputs]
            tangents[j].view(-1)[e] = 1
            info = run(tangents)
            cols.append(info[2])
        columns.append(cols)
    if info is None:  # (no input has an element: one call for the outputs' structure)
        info = run([zeros(t.shape, dtype=t.dtype) for t in inputs])
    outputs_tuple, primals = info[0], info[1]
    jac = []
    for i, out in enumerate(primals):
        row = []
        for j, inp in enumerate(inputs):
            if columns[j]:
                row.append(_stack([c[i] for c in columns[j]], dim=-1).reshape(
                    out.shape + inp.shape))
            else:
                row.append(zeros(out.shape + inp.shape, dtype=out.dtype))
        jac.append(tuple(row))
    return _restructure(tuple(jac), (outputs_tuple, inputs_tuple))


# ------------------------------------------------------------------------------ second order
def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs`` (``torch.autograd.functional.hessian``).

    The `jacobian` of ``inputs -> jacobian(func, inputs, create_graph=True)``.

    Args:
        func: a function of tensors returning a tensor with a single element.
        inputs: a tensor or a tuple of tensors.
        create_graph: keep the graph, so the Hessian can be differentiated.
        strict: raise where the Hessian does not depend on an input.
        vectorize: as in `jacobian` (for the outer one).
        outer_jacobian_strategy: strategy of the outer `jacobian`: ``"forward-mode"`` (needs
            ``vectorize=True``) runs the inner reverse-mode one inside a dual level (forward
            over reverse: the backward formulas of ``func``'s ops need forward formulas).

    Returns:
        For inputs ``i`` and ``j`` of shapes ``I_i`` and ``I_j`` a tensor of shape
        ``I_i + I_j``: a tensor for one input, else a tuple of tuples ``[i][j]``.

    Raises:
        RuntimeError: ``func`` returns a tuple or a tensor with more than one element, or a
            ``strict=True`` violation.
        AssertionError, NotImplementedError, TypeError: as `jacobian`.
    """
    Tensor = _tensor_cls()
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            # (as PyTorch: the dual inputs must require grad, or the inner jacobian would
            # detach them and lose their tangents)
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _restructure(res, (inputs_tuple, inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Hessian product ``v @ H`` of a scalar ``func`` (``torch.autograd.functional.vhp``).

    The gradient is computed with its graph, then differentiated once more, seeded with ``v``.

    Args:
        func: a function of tensors returning a tensor with a single element.
        inputs: a tensor or a tuple of tensors.
        v: shaped like the input(s); may be omitted when there is one single-element input.
        create_graph: keep the graph, so the results can be differentiated.
        strict: raise where the gradient or the Hessian does not depend on an input.

    Returns:
        `(func_output, vhp)`: ``func``'s output and the product, structured as ``inputs``.

    Raises:
        RuntimeError: ``func`` returns a tuple or a tensor with more than one element, ``v``
            of the wrong length or size, or a ``strict=True`` violation.
        TypeError: an input, output or ``v`` entry is not a tensor.
    """
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Hessian-vector product ``H @ v`` of a scalar ``func`` (``torch.autograd.functional.hvp``).

    The double-backward trick applied to the gradient (see `jvp`): three backward passes, where
    `vhp` needs two (for a symmetric Hessian the two give the same values).

    Args:
        func: a function of tensors returning a tensor with a single element.
        inputs: a tensor or a tuple of tensors.
        v: shaped like the input(s); may be omitted when there is one single-element input.
        create_graph: keep the graph, so the results can be differentiated.
        strict: raise where the gradient or the Hessian does not depend on an input.

    Returns:
        `(func_output, hvp)`: ``func``'s output and the product, structured as ``inputs``.

    Raises:
        RuntimeError, TypeError: as `vhp`.
    """
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


def _second_order(func, inputs, v, create_graph, strict, fn_name):
    """`vhp` and `hvp`: the gradient with its graph, then ``v @ H`` (one more backward) or
    ``H @ v`` (the double-backward trick on the gradient)."""
    from .. import zeros_like

    Tensor = _tensor_cls()
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _prepare(inputs, create_graph=create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, fn_name, _V_INPUT_MSG)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", fn_name)
        _check_requires_grad(outputs, "outputs", strict)
        if outputs_tuple or not isinstance(outputs[0], Tensor):
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        if outputs[0].nelement() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                               "contain a single element")
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        if fn_name == "hvp":
            dummies = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
            double_back = _grad(jac, inputs, dummies, create_graph=True)
            _check_requires_grad(jac, "hessian", strict)  # (PyTorch checks jac here too)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        if fn_name == "hvp":
            grads = _grad(double_back, dummies, v, create_graph=create_graph)
            result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back_trick")
        else:
            grads = _grad(jac, inputs, v, create_graph=create_graph)
            result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back")
    return (_restructure(_finish(outputs, create_graph), outputs_tuple),
            _restructure(_finish(result, create_graph), inputs_tuple))
