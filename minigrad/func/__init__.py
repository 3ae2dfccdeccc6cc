"""Function transforms (``torch.func``): `grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`,
`jacfwd`, `hessian` and `functional_call`, for functions of tensors (and of nested tuples,
lists and dicts of tensors), with PyTorch 2.13's signatures, results and error messages.

How they are built here, and what that costs compared with PyTorch's:

* PyTorch's transforms run the function at a level of their own (functorch's wrappers), so
  they nest freely and never touch the caller's graph. minigrad has **one reverse graph and one
  forward-AD level**. The reverse transforms (`grad`, `grad_and_value`, `vjp`, `jacrev`) call
  the function on fresh leaves that require grad (or on aliases of inputs that already require
  grad, or carry a tangent, so that outer transforms and the caller's graph still see through)
  and differentiate with `minigrad.autograd.grad` (``create_graph`` when grad mode is on, so
  they compose: ``grad(grad(f))``, ``jacfwd(jacrev(f))``). A result that depends on nothing
  outside the transform is detached, as PyTorch's is.
* The forward transforms (`jvp`, `jacfwd`) run the function inside a
  `minigrad.autograd.forward_ad.dual_level`, as PyTorch's ``torch.func.jvp`` does too: so they
  raise PyTorch's "Nested forward mode AD is not supported at the moment" inside an active dual
  level (and ``jacfwd(jacfwd(f))`` raises it), exactly as PyTorch 2.13 does.
* No ``vmap``: `jacrev` does one backward pass per output element and `jacfwd` one forward pass
  per input element (PyTorch batches them); the values are the same. ``chunk_size`` is
  accepted and only checked; ``randomness`` is accepted.
"""

from __future__ import annotations

import contextlib
import weakref

from ..autograd import grad_mode
from ..autograd.functional import _stack
from ._tree import tree_flatten, tree_unflatten, treespec_pprint

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"]


def _tensor_cls():
    from .._tensor import Tensor

    return Tensor


# ------------------------------------------------------------------------------ argnums
def _check_argnums(argnums, n_args: int) -> None:
    """PyTorch's checks of ``argnums`` against the positional arguments (RuntimeError)."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        if not -n_args <= argnums < n_args:
            raise RuntimeError(f"Got argnum={argnums}, but only {n_args} positional inputs")
        return
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    for a in argnums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        _check_argnums(a, n_args)
    if len(set(a % n_args for a in argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")


def _selected(args: tuple, argnums):
    """The arguments ``argnums`` picks: one (an int) or a tuple of them."""
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[a] for a in argnums)


def _replace(args: tuple, argnums, new) -> tuple:
    """``args`` with the arguments at ``argnums`` replaced by ``new`` (as `_selected` gives)."""
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for a, v in zip(argnums, new):
            args[a] = v
    return tuple(args)


# ------------------------------------------------------------------------------ wrapping
_retired: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # leaves of finished
# transforms: nothing differentiates with respect to them any more


class _Scope:
    """The fresh leaves one transform differentiates with respect to: its results are detached
    when they depend on nothing else (see `lift`). Its
    leaves are retired by `retire` when the transform returns (a later result reaching only
    them is detached too, e.g. the tangents `jacfwd` gets from the `jacrev` inside
    `hessian`)."""

    def __init__(self):
        self.leaves: dict = {}

    def retire(self) -> None:
        _retired.update(self.leaves)

    def wrap(self, t):
        """What the function is called with in place of input ``t``: a fresh leaf that requires
        grad (carrying ``t``'s tangent when it has one), or a view of ``t`` when ``t`` already
        requires grad (an outer transform's leaf or a tensor of the caller's graph)."""
        from ..autograd import forward_ad as F

        tangent = F.fw_grad(t) if F._current_level >= 0 else None
        if t.requires_grad:
            inner = t.view_as(t)  # (a view op: it carries t's tangent along)
        else:
            inner = t.detach().requires_grad_()
            if tangent is not None:
                self.leaves[id(inner)] = inner
                inner = F.make_dual(inner, tangent)
        self.leaves[id(inner)] = inner
        return inner

    def depends_outside(self, t) -> bool:
        """Whether ``t``'s graph reaches a leaf other than this scope's."""
        seen, stack = set(), [t.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            var = getattr(node, "variable", None)
            if var is not None and type(node).__name__ == "AccumulateGrad":
                if id(var) not in self.leaves and _retired.get(id(var)) is not var:
                    return True
                continue
            stack.extend(fn for fn, _ in node.next_functions)
        return False

    def lift(self, t):
        """``t`` as the transform returns it: detached (its tangent kept) unless it depends on
        something outside the transform."""
        Tensor = _tensor_cls()
        if not isinstance(t, Tensor) or not t.requires_grad:
            return t
        if t.grad_fn is not None and self.depends_outside(t):
            return t
        if t.grad_fn is None and id(t) not in self.leaves and _retired.get(id(t)) is not t:
            return t
        from ..autograd import forward_ad as F

        tangent = F.fw_grad(t) if F._current_level >= 0 else None
        out = t.detach()
        if tangent is None:
            return out
        if tangent.requires_grad and not (
            tangent.grad_fn is not None and self.depends_outside(tangent)
        ):
            tangent = tangent.detach()  # (its graph, too, reaches only this scope's leaves)
        return F.make_dual(out, tangent)


@contextlib.contextmanager
def _transform(kind: int = 0):
    """While a transform calls its function: custom Functions must have ``setup_context``
    (PyTorch's rule for autograd.Function under functorch); ``kind=1``: a transform PyTorch
    runs under vmap (`jacfwd`), where they need a vmap rule too."""
    from ..autograd.function import _transforms

    _transforms[kind] += 1
    try:
        yield
    finally:
        _transforms[kind] -= 1


def _check_tensors(leaves, what: str) -> None:
    Tensor = _tensor_cls()
    for t in leaves:
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")


def _split_aux(output, has_aux: bool, api: str):
    """``(output, aux)``: with ``has_aux`` the function must return a pair."""
    if not has_aux:
        return output, None
    if not (isinstance(output, (tuple, list)) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return output[0], output[1]


def _lift_tree(scope: _Scope, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([scope.lift(t) for t in leaves], spec)


def _zeros_like(t):
    from .._creation import zeros_like

    return zeros_like(t)


def _grad_of(outputs, inputs, grad_outputs=None):
    """d(outputs)/d(inputs), zeros for inputs no output depends on; with a graph when grad mode
    is on (so that outer transforms can differentiate it)."""
    from ..autograd import grad as autograd_grad

    kept = [
        (o, g) for o, g in zip(outputs, grad_outputs or [None] * len(outputs)) if o.requires_grad
    ]
    if not kept:
        return [_zeros_like(t) for t in inputs]
    outs, gouts = zip(*kept)
    grads = autograd_grad(
        outs,
        inputs,
        gouts if grad_outputs is not None else None,
        retain_graph=True,
        create_graph=grad_mode.is_grad_enabled(),
        allow_unused=True,
    )
    return [_zeros_like(t) if g is None else g for g, t in zip(grads, inputs)]


# ------------------------------------------------------------------------------ grad
def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``grad_and_value(func)(*args)``: ``(gradient, value)`` of a function returning a scalar
    tensor (``torch.func.grad_and_value``).

    Args:
        func: takes tensors (or trees of them) and returns a 0-dim tensor (with ``has_aux``, a
            pair ``(that tensor, aux)``).
        argnums: the positional argument (int) or arguments (tuple) to differentiate.
        has_aux: see ``func``; the result is then ``(gradient, (value, aux))``.

    Returns:
        A function returning ``(gradient, value)``: the gradient shaped as the chosen
        argument(s) (a tuple for a tuple ``argnums``), zeros where ``func`` does not depend on
        it.

    Raises:
        RuntimeError: (PyTorch's messages) bad ``argnums``; ``func`` returns no tensor, not a
            scalar, or not a pair with ``has_aux``.
        ValueError: a chosen argument holds something that is not a tensor.
    """
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        _check_argnums(argnums, len(args))
        leaves, spec = tree_flatten(_selected(args, argnums))
        _check_tensors(leaves, api)
        outer_grad = grad_mode.is_grad_enabled()
        scope = _Scope()
        with grad_mode.enable_grad():
            inner = [scope.wrap(t) for t in leaves]
            with _transform():
                output = func(*_replace(args, argnums, tree_unflatten(inner, spec)), **kwargs)
            output, aux = _split_aux(output, has_aux, api)
            if not isinstance(output, _tensor_cls()):
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {output.dim()} dims. Maybe you wanted to use "
                    "the vjp or jacrev APIs instead?"
                )
        with grad_mode.set_grad_enabled(outer_grad):
            if output.dtype.is_floating_point:
                grads = _grad_of([output], inner)
            else:
                grads = [_zeros_like(t) for t in inner]
        grads = tree_unflatten([scope.lift(g) for g in grads], spec)
        value = scope.lift(output)
        scope.retire()
        if has_aux:
            return grads, (value, _lift_tree(scope, aux))
        return grads, value

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """``grad(func)(*args)``: the gradient of a function returning a scalar tensor
    (``torch.func.grad``); with ``has_aux``, ``(gradient, aux)``. Arguments, errors and
    results as `grad_and_value`, whose value it drops."""
    import functools

    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# ------------------------------------------------------------------------------ vjp
def vjp(func, *primals, has_aux: bool = False):
    """``(output, vjp_fn)`` of ``func`` at ``primals`` (``torch.func.vjp``); with ``has_aux``,
    ``(output, vjp_fn, aux)``.

    ``vjp_fn(cotangents)`` (one per output, in the output's structure) returns the
    vector-Jacobian products, a tuple with one entry per primal (zeros where ``func`` does
    not depend on it); it may be called several times.

    Raises:
        RuntimeError: (PyTorch's messages) ``func`` returns something that is not a tensor, not
            a pair with ``has_aux``; ``vjp_fn`` given cotangents of another structure (or
            shape: autograd's "Mismatch in shape").
        ValueError: a primal holds something that is not a tensor.
    """
    return _vjp(func, primals, has_aux, "vjp(f, *primals)")


def _vjp(func, primals, has_aux, api):
    leaves, spec = tree_flatten(primals)
    _check_tensors(leaves, api)
    outer_grad = grad_mode.is_grad_enabled()
    scope = _Scope()
    with grad_mode.enable_grad():
        inner = [scope.wrap(t) for t in leaves]
        with _transform():
            output = func(*tree_unflatten(inner, spec))
        output, aux = _split_aux(output, has_aux, api)
    out_leaves, out_spec = tree_flatten(output)
    Tensor = _tensor_cls()
    for o in out_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got "
                f"unsupported type {type(o)}"
            )

    def vjp_fn(cotangents):
        ct_leaves, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree "
                "structure of outputs to the function. cotangents: "
                f"{treespec_pprint(ct_spec)}, primal output: "
                f"{treespec_pprint(out_spec)}"
            )
        with grad_mode.set_grad_enabled(outer_grad):
            grads = _grad_of(out_leaves, inner, list(ct_leaves))
        return tree_unflatten([scope.lift(g) for g in grads], spec)

    result = (_lift_tree(scope, output), vjp_fn)
    scope.retire()  # (vjp_fn still knows them as its own)
    return result + (_lift_tree(scope, aux),) if has_aux else result


# ------------------------------------------------------------------------------ jvp
def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(output, jvp_out)`` of ``func`` at ``primals`` along ``tangents``
    (``torch.func.jvp``), by forward-mode AD in a ``dual_level``; with ``has_aux``,
    ``(output, jvp_out, aux)``. ``jvp_out`` has the output's structure (zeros for an output
    that does not depend on the primals).

    Args:
        primals: a tuple (the arguments of ``func``) of tensors or trees of them.
        tangents: the same structure, each tensor of its primal's size.
        strict: accepted (PyTorch ignores it too).

    Raises:
        RuntimeError: (PyTorch's messages) ``primals`` not a tuple, ``tangents`` of another
            structure, no tensor in ``primals``, a non-tensor there or returned; a tangent of
            another size; inside an active dual level ("Nested forward mode AD is not supported
            at the moment": one level only, as in PyTorch).
        ValueError: a primal or tangent that is not floating point (``make_dual``'s).
    """
    return _jvp(func, primals, tangents, has_aux, "jvp(f, primals, tangents)")


def _jvp(func, primals, tangents, has_aux, api):
    from ..autograd import forward_ad as F

    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, "
            "tangents also must be. Got primals with structure "
            f"{p_spec} and tangents with structure {t_spec}"
        )
    Tensor = _tensor_cls()
    for leaves, name in ((p_leaves, "primals"), (t_leaves, "tangents")):
        if not leaves:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for t in leaves:
            if not isinstance(t, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(t)}")
    if _nesting[0] and F._current_level >= 0:
        # inside another minigrad.func forward transform, which holds the one dual level
        return _jvp_by_double_vjp(func, p_leaves, t_leaves, p_spec, has_aux, api)
    scope = _Scope()
    _nesting[0] += 1
    try:
        return _jvp_in_level(func, p_leaves, t_leaves, p_spec, has_aux, api, scope)
    finally:
        _nesting[0] -= 1


_nesting = [0]  # minigrad.func forward transforms running (the outermost holds the level)


def _check_outputs(out_leaves, api) -> None:
    Tensor = _tensor_cls()
    for o in out_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got "
                f"unsupported type {type(o)}"
            )


def _jvp_by_double_vjp(func, p_leaves, t_leaves, p_spec, has_aux, api):
    """`jvp` nested in another forward transform (``jvp(jvp)``, ``jacfwd(jacfwd)``): PyTorch
    gives each its own level; minigrad has one, held by the outer one, so the inner product is
    computed by reverse mode instead, with the *double-vjp trick*: ``g(u) = J^T u`` is linear
    in a dummy ``u``, and differentiating ``<g(u), t>`` with respect to ``u`` gives ``J t``.
    Both backward passes keep their graphs and run inside the outer level, so the result
    carries the outer tangent (forward over reverse over reverse). Same values."""
    from ..autograd import grad as autograd_grad

    outer_grad = grad_mode.is_grad_enabled()
    scope = _Scope()
    with grad_mode.enable_grad():
        inner = [scope.wrap(p) for p in p_leaves]
        with _transform():
            output = func(*tree_unflatten(inner, p_spec))
        output, aux = _split_aux(output, has_aux, api)
        out_leaves, out_spec = tree_flatten(output)
        _check_outputs(out_leaves, api)
        diff = [o for o in out_leaves if o.requires_grad and o.dtype.is_floating_point]
        us = [_zeros_like(o).requires_grad_() for o in diff]
        jt = {}
        if diff:
            gs = autograd_grad(diff, inner, us, create_graph=True, allow_unused=True)
            kept = [(g, t) for g, t in zip(gs, t_leaves) if g is not None and g.requires_grad]
            if kept:
                with grad_mode.set_grad_enabled(True):
                    res = autograd_grad(
                        [g for g, _ in kept],
                        us,
                        [t for _, t in kept],
                        create_graph=outer_grad,
                        allow_unused=True,
                    )
                jt = {id(o): r for o, r in zip(diff, res)}
    tans = [_zeros_like(o) if jt.get(id(o)) is None else scope.lift(jt[id(o)]) for o in out_leaves]
    prims = [scope.lift(o) for o in out_leaves]
    scope.retire()
    result = (tree_unflatten(prims, out_spec), tree_unflatten(tans, out_spec))
    return result + (aux,) if has_aux else result


def _jvp_in_level(func, p_leaves, t_leaves, p_spec, has_aux, api, scope):
    """`jvp` in a new dual level (the outermost forward transform)."""
    from ..autograd import forward_ad as F

    with F.dual_level():
        duals = [F.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)]
        with _transform():
            output = func(*tree_unflatten(duals, p_spec))
        output, aux = _split_aux(output, has_aux, api)
        out_leaves, out_spec = tree_flatten(output)
        _check_outputs(out_leaves, api)
        prims, tans = [], []
        for o in out_leaves:
            p, t = F.unpack_dual(o)
            prims.append(scope.lift(p))
            tans.append(_zeros_like(p) if t is None else t)
        if has_aux:
            aux_leaves, aux_spec = tree_flatten(aux)
            aux = tree_unflatten(
                [F.unpack_dual(a).primal if hasattr(a, "_fw_grad") else a for a in aux_leaves],
                aux_spec,
            )
    # (a tangent that depends only on the leaves of transforms run inside, e.g. hessian's
    # jacrev, is detached)
    tans = [scope.lift(t) for t in tans]
    result = (tree_unflatten(prims, out_spec), tree_unflatten(tans, out_spec))
    return result + (aux,) if has_aux else result


# ------------------------------------------------------------------------------ jacobians
def _jac_result(per_out, out_spec, argnums, arg_spec):
    """The Jacobian tree: the output's structure, each leaf holding the structure of the
    chosen arguments (one tensor for an int ``argnums``)."""
    return tree_unflatten([tree_unflatten(row, arg_spec) for row in per_out], out_spec)


def jacrev(
    func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False
):
    """``jacrev(func)(*args)``: the Jacobian of ``func`` with respect to the arguments
    ``argnums``, by reverse mode (``torch.func.jacrev``): one backward pass per output element
    (PyTorch does them at once under ``vmap``, which minigrad has not got; same values).

    Each output leaf ``o`` gives a tensor of shape ``o.shape + arg.shape`` per chosen argument
    (a tuple of them for a tuple ``argnums``), in the output's structure; with ``has_aux``,
    ``(jacobian, aux)``.

    Raises:
        RuntimeError: (PyTorch's messages) bad ``argnums``, a non-tensor or integer output, not
            a pair with ``has_aux``.
        ValueError: ``chunk_size`` not None and not positive; a non-tensor argument.
    """
    import functools

    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _check_argnums(argnums, len(args))
        selected = _selected(args, argnums)

        def f(*sel):
            return func(
                *_replace(args, argnums, sel if isinstance(argnums, tuple) else sel[0]), **kwargs
            )

        primals = selected if isinstance(argnums, tuple) else (selected,)
        res = _vjp(f, primals, has_aux, "vjp(f, *primals)")
        output, vjp_fn = res[0], res[1]
        out_leaves, out_spec = tree_flatten(output)
        for o in out_leaves:
            if not o.dtype.is_floating_point:
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or "
                    f"complex Tensors, got Tensor with dtype {o.dtype}"
                )
        arg_leaves, arg_spec = tree_flatten(selected)
        from .. import zeros, zeros_like

        rows = []
        for k, o in enumerate(out_leaves):
            per_elem = []  # one vjp per element of output k
            for e in range(o.numel()):
                cts = [zeros_like(q) for q in out_leaves]
                cts[k].view(-1)[e] = 1
                g = vjp_fn(tree_unflatten(cts, out_spec))
                per_elem.append(tree_flatten(g if isinstance(argnums, tuple) else g[0])[0])
            row = []
            for j, a in enumerate(arg_leaves):
                if per_elem:
                    jac = _stack([p[j] for p in per_elem]).reshape(o.shape + a.shape)
                else:
                    jac = zeros(o.shape + a.shape, dtype=a.dtype)
                row.append(jac)
            rows.append(row)
        jac = _jac_result(rows, out_spec, argnums, arg_spec)
        return (jac, res[2]) if has_aux else jac

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """``jacfwd(func)(*args)``: the Jacobian of ``func`` with respect to the arguments
    ``argnums``, by forward mode (``torch.func.jacfwd``): one `jvp` per input element, with a
    one-hot tangent (PyTorch does them at once under ``vmap``, which minigrad has not got; same
    values). Shapes and structure as `jacrev`'s; with ``has_aux``, ``(jacobian, aux)``.

    Raises:
        RuntimeError: as `jvp` (inside an active dual level too: PyTorch's "Nested forward mode
            AD is not supported at the moment", so ``jacfwd(jacfwd(f))`` cannot work, as in
            PyTorch); bad ``argnums``.
        ValueError: a non-floating-point argument (``make_dual``'s message).
    """
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .. import zeros_like

        _check_argnums(argnums, len(args))
        selected = _selected(args, argnums)
        arg_leaves, arg_spec = tree_flatten(selected)
        _check_tensors(arg_leaves, "jacfwd")

        def f(*leaves):
            sel = tree_unflatten(list(leaves), arg_spec)
            with _transform(1):  # (PyTorch's jacfwd is a vmap over jvp)
                return func(*_replace(args, argnums, sel), **kwargs)

        columns = []  # per input leaf, per element: the output leaves' tangents
        output = aux = out_spec = None
        for j, a in enumerate(arg_leaves):
            cols = []
            for e in range(a.numel()):
                tangents = [zeros_like(q) for q in arg_leaves]
                tangents[j].view(-1)[e] = 1
                res = _jvp(
                    f, tuple(arg_leaves), tuple(tangents), has_aux, "jvp(f, primals, tangents)"
                )
                output, tans = res[0], res[1]
                aux = res[2] if has_aux else None
                out_leaves, out_spec = tree_flatten(tans)
                cols.append(out_leaves)
            columns.append(cols)
        if out_spec is None:  # (no input element at all: one call for the output's shape)
            res = _jvp(
                f,
                tuple(arg_leaves),
                tuple(zeros_like(q) for q in arg_leaves),
                has_aux,
                "jvp(f, primals, tangents)",
            )
            output, aux = res[0], (res[2] if has_aux else None)
        out_leaves, out_spec = tree_flatten(output)
        rows = []
        for k, o in enumerate(out_leaves):
            row = []
            for j, a in enumerate(arg_leaves):
                cols = columns[j]
                if cols:
                    jac = _stack([c[k] for c in cols], dim=-1).reshape(o.shape + a.shape)
                else:
                    from .. import zeros

                    jac = zeros(o.shape + a.shape, dtype=o.dtype)
                row.append(jac)
            rows.append(row)
        jac = _jac_result(rows, out_spec, argnums, arg_spec)
        return (jac, aux) if has_aux else jac

    return wrapper


def hessian(func, argnums=0):
    """``hessian(func)(*args)``: the Hessian, ``jacfwd(jacrev(func, argnums), argnums)``
    (forward over reverse, as ``torch.func.hessian``); for an output ``o`` and argument ``a``,
    shape ``o.shape + a.shape + a.shape``. The backward pass of ``func`` runs inside a dual
    level, so every op it uses needs a forward formula."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------ modules
def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Call ``module(*args, **kwargs)`` with some parameters and buffers replaced by the given
    tensors (``torch.func.functional_call``): names are those of ``named_parameters`` /
    ``named_buffers`` (``"layer.weight"``); the module is restored afterwards (even on error).

    Args:
        parameter_and_buffer_dicts: a dict of name -> tensor, or a sequence of them (merged).
        args: the positional argument(s): a tuple, or one value.
        kwargs: keyword arguments of the call.
        tie_weights: a tensor given for one of two tied names is used for both.
        strict: every parameter and buffer must be given, and nothing else.

    Raises:
        ValueError: a name in two of the dicts.
        RuntimeError: with ``strict``, missing or unexpected names (PyTorch's message).
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        given = dict(parameter_and_buffer_dicts)
    else:
        given = {}
        for d in parameter_and_buffer_dicts:
            repeated = [k for k in d if k in given]
            if repeated:
                raise ValueError(
                    f"{repeated} appeared in multiple dictionaries; behavior of "
                    "functional call is ambiguous"
                )
            given.update(d)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    with _reparametrize(module, given, tie_weights, strict):
        return module(*args, **kwargs)


@contextlib.contextmanager
def _reparametrize(module, given: dict, tie_weights: bool, strict: bool):
    """Swap the module's parameters/buffers for ``given`` for the duration of the block."""
    names = {}  # every name -> the tensor it is now (tied names share one)
    for name, t in module.named_parameters(remove_duplicate=False):
        names[name] = t
    for name, t in module.named_buffers(remove_duplicate=False):
        names[name] = t
    if strict:
        missing = [n for n in names if n not in given]
        unexpected = [n for n in given if n not in names]
        if missing or unexpected:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(repr(k) for k in missing) + "."
            raise RuntimeError(msg)
    values = dict(given)
    if tie_weights:  # a tensor given for one of tied names goes to all of them
        for name, t in names.items():
            if name in values:
                continue
            for other, u in names.items():
                if u is t and other in given:
                    values[name] = given[other]
                    break
    saved = []
    try:
        for name, value in values.items():
            owner, _, attr = name.rpartition(".")
            sub = module.get_submodule(owner) if owner else module
            store = (
                sub._parameters
                if attr in sub._parameters
                else sub._buffers
                if attr in sub._buffers
                else None
            )
            if store is None:
                saved.append((sub, attr, None, sub.__dict__.get(attr, _MISSING)))
                object.__setattr__(sub, attr, value)
                continue
            saved.append((sub, attr, store, store[attr]))
            store[attr] = value
        yield
    finally:
        for sub, attr, store, old in reversed(saved):
            if store is not None:
                store[attr] = old
            elif old is _MISSING:
                sub.__dict__.pop(attr, None)
            else:
                object.__setattr__(sub, attr, old)


_MISSING = object()


def __dir__():
    """What ``dir(torch.func)`` lists: the public names (not this module's helpers)."""
    from .._namespace import public_dir

    return public_dir(globals())
