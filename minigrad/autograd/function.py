"""Custom differentiable operations: ``Function`` with ``forward``/``backward`` and a ``ctx``.

Mirrors ``torch/autograd/function.py``. ``MyFn.apply(*args)`` runs ``MyFn.forward(ctx, *args)``
without recording, then (if grad mode is on and a tensor argument requires grad) makes ``ctx``
the ``grad_fn`` of the outputs: in PyTorch the context *is* the backward node, an instance of a
class named ``MyFnBackward`` (made for each subclass by the metaclass, ``MyFn._backward_cls``).
Only tensor arguments get a slot in ``next_functions``; ``backward`` must return one value per
``forward`` argument (None for non-tensors; extra trailing Nones are dropped).

The second style: a ``forward(*args)`` without ``ctx`` plus a static
``setup_context(ctx, inputs, output)`` that fills the context (``inputs``: the arguments with
defaults filled in; ``output``: what ``forward`` returned). Keyword arguments of ``apply`` are
placed at the positions of ``forward``'s parameters of those names, as PyTorch's C++ ``apply``
does (a tensor given by keyword gets an edge like a positional one).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import warnings

from . import grad_mode
from . import graph as _graph
from .graph import FREED_MSG, Node, SavedTensor, edge_of, zeros_grad


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) and ``backward`` of a custom Function receive as
    ``ctx`` (``torch.autograd.function.FunctionCtx``).

    ``save_for_backward(*tensors)`` keeps tensors (version-checked on use; freed after
    backward without ``retain_graph``); ``saved_tensors`` returns them; ``needs_input_grad`` is a
    tuple of bools, one per forward argument (whether it is a tensor that requires grad, in
    ``forward``, ``setup_context`` and ``backward`` alike); ``mark_dirty``,
    ``mark_non_differentiable`` and ``set_materialize_grads`` behave as in PyTorch. Any other
    attribute can be stored. The checks of what was given run in ``apply``, after ``forward``.
    """

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for ``backward``; read them back with ``saved_tensors``.

        Only the last call counts. ``apply`` raises TypeError for an argument that is neither a
        tensor nor None (when the graph is recorded)."""
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Save tensors for ``jvp`` (forward-mode AD): inside ``jvp``, ``saved_tensors`` returns
        them (``()`` when nothing was saved for forward, even if ``save_for_backward`` was
        called); ``backward`` still sees the ``save_for_backward`` ones. Only the last call
        counts.

        Raises:
            AssertionError: an argument is neither a tensor nor None (PyTorch's check).
        """
        from .._tensor import Tensor

        for tensor in tensors:
            if not (isinstance(tensor, Tensor) or tensor is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you "
                                     "should save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs modified in place by ``forward``: each must be returned as an output;
        it keeps its identity, gets a version bump and the Function's node as its history.
        ``apply`` raises RuntimeError for a non-tensor, a dirty input not returned, a leaf that
        requires grad, or a view of one."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        """Deprecated in PyTorch, where it does nothing; the same here."""

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that never require grad (``backward`` gets zeros for them). An input
        returned as-is becomes an alias that does not require grad."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether undefined output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = value


_CLEARED_MSG = ("saved_tensors can only be accessed once when clear_saved_tensors_on_access=True "
                "is set on the autograd.Function. Either access saved_tensors only once, or set "
                "clear_saved_tensors_on_access=False.")


class _NoneCounter:
    """The version counter of a saved None (which never changes)."""

    value = 0


def _saved_none() -> SavedTensor:
    """The ``SavedTensor`` that a ``None`` given to ``save_for_backward`` becomes (it unpacks to
    None; ``register_hooks`` on it is refused)."""
    s = SavedTensor.__new__(SavedTensor)
    s._vc, s._saved_version, s._freed, s._is_output = _NoneCounter, 0, False, False
    return s


class BackwardCFunction(Node, FunctionCtx):
    """The backward node of a custom Function; subclassed per Function as ``<Name>Backward``
    (``torch.autograd.function.BackwardCFunction``). It is also the ``ctx``."""

    _forward_cls = None

    def __init__(self):
        Node.__init__(self)
        self.needs_input_grad = ()
        self._n_args = 0
        self._tensor_slots = []  # indices of forward arguments that are tensors
        self._non_tensor_outputs = ()  # output positions that are not tensors

    # the engine must not materialise missing gradients: backward does, with None for the
    # non-tensor outputs (the user's choice is ``_materialize``)
    materialize_grads = False
    _materialize = True
    _cleared = False  # saved_tensors read once under clear_saved_tensors_on_access
    _in_jvp = False  # the user's jvp is running: saved_tensors are the ones saved for forward
    # False: outputs marked non-differentiable get None, not zeros, in backward (PyTorch's
    # private ``ctx._materialize_non_diff_grads``)
    _materialize_non_diff_grads = True
    _non_diff_outputs = ()

    def __repr__(self) -> str:
        # as PyTorch: the class's module and name (``<torch.autograd.function.FnBackward ...>``)
        return object.__repr__(self)

    def set_materialize_grads(self, value: bool) -> None:
        """Whether undefined output gradients reach ``backward`` as zeros (default) or None."""
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward`` (None where None was given).

        Raises:
            RuntimeError: the graph was freed by a backward without ``retain_graph``, a saved
                tensor was modified in place since, or (``clear_saved_tensors_on_access``) it
                was read before.
        """
        if self._in_jvp:  # (PyTorch: the tensors saved for forward, not checked or freed)
            return tuple(getattr(self, "saved_for_forward", None) or ())
        if self._cleared:
            raise RuntimeError(_CLEARED_MSG)
        if getattr(self, "_freed", False):  # checked first, even when nothing was saved
            raise RuntimeError(FREED_MSG)
        out = tuple(s.unpack() if isinstance(s, SavedTensor) else s
                    for s in getattr(self, "_ctx_saved", ()))
        if getattr(self._forward_cls, "clear_saved_tensors_on_access", False):
            self._cleared = True  # only the returned tensors keep the values alive from now on
            self._ctx_saved = []
        return out

    @property
    def saved_variables(self) -> tuple:
        """Deprecated alias of ``saved_tensors`` (a DeprecationWarning says so)."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """The ``SavedTensor`` objects behind ``saved_tensors`` (one per ``save_for_backward``
        argument, None included), e.g. to ``register_hooks`` on them.

        Raises:
            RuntimeError: the graph was freed by a backward without ``retain_graph``.
        """
        if getattr(self, "_freed", False):
            raise RuntimeError(FREED_MSG)
        return tuple(getattr(self, "_ctx_saved", ()))

    def _release_variables(self) -> None:
        self._freed = True  # (PyTorch's has_freed_buffers: saved_tensors raises from now on)
        for s in getattr(self, "_ctx_saved", ()):
            if isinstance(s, SavedTensor):
                s._release()

    def _get_user_fn(self):
        """The user's ``backward``, or ``vjp`` (its alias) when only that is overridden."""
        backward_fn = self._forward_cls.backward
        vjp_fn = self._forward_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return backward_fn if backward_fn is not Function.backward else vjp_fn

    def backward(self, *grads):
        from .._tensor import Tensor

        name = type(self).__name__
        if self._materialize:  # (the engine passes None for outputs without a gradient)
            keep_none = () if self._materialize_non_diff_grads else self._non_diff_outputs
            grads = tuple(zeros_grad(*meta) if g is None and meta[1] is not None
                          and nr not in keep_none else g
                          for nr, (g, meta) in enumerate(zip(grads, self._out_meta)))
        if self._non_tensor_outputs:  # backward gets None for them, even with materialize
            grads = tuple(None if nr in self._non_tensor_outputs else g
                          for nr, g in enumerate(grads))
        user_fn = self._get_user_fn()
        if getattr(self._forward_cls, "boxed_grads_call", False):
            result = user_fn(self, list(grads))  # one mutable list (backward may free entries)
        else:
            result = user_fn(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) > self._n_args and all(r is None for r in result[self._n_args:]):
            result = result[:self._n_args]  # trailing Nones too many are dropped, as PyTorch
        if len(result) != self._n_args:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {self._n_args}, got {len(result)})")
        slots = set(self._tensor_slots)
        for i, g in enumerate(result):
            if i not in slots and g is not None:
                raise RuntimeError(f"function {name} returned a gradient different than None at "
                                   f"position {i + 1}, but the corresponding forward input was "
                                   "not a Variable")
            if i in slots and g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        out = []
        for k, (slot, (node, _)) in enumerate(zip(self._tensor_slots, self.next_functions)):
            g = result[slot]
            if g is not None and node is not None:
                want = tuple(self._input_shapes[slot])
                if tuple(g.shape) != want:
                    if not _expandable(want, tuple(g.shape)):
                        raise RuntimeError(
                            f"Function {name} returned an invalid gradient at index {k} - got "
                            f"{list(g.shape)} but expected shape compatible with {list(want)}")
                    g = _sum_to(g, want)  # PyTorch's validate_outputs: reduce a broadcast
            out.append(g)  # kept for a slot without an edge: post hooks see it (as PyTorch)
        return tuple(out)


def _expandable(shape: tuple, to: tuple) -> bool:
    """Whether ``shape`` broadcasts (expands) to ``to``."""
    if len(shape) > len(to):
        return False
    return all(s == t or s == 1 for s, t in zip(shape[::-1], to[::-1]))


def _sum_to(g, shape: tuple):
    """``g`` summed down to ``shape`` (which expands to ``g.shape``), as ``at::sum_to``."""
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and g.shape[lead + i] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    return g.reshape(shape) if lead or g.shape != shape else g


_FUNCTION_COUNTER = itertools.count()
# how many minigrad.func transforms are calling their function (PyTorch refuses a Function
# without setup_context inside them), and how many of them PyTorch runs under vmap (jacfwd:
# a Function needs a vmap rule there)
_transforms = [0, 0]


class FunctionMeta(type):
    """Metaclass of `Function` (``torch.autograd.function.FunctionMeta``): gives every subclass
    ``MyFn`` its node class ``MyFn._backward_cls``, a `BackwardCFunction` named ``MyFnBackward``.
    """

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,),
                           {"_forward_cls": cls, "__module__": __name__,
                            "__doc__": f"Backward of {name}."})
        backward_fn._autograd_function_id = next(_FUNCTION_COUNTER)
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of custom ops (``torch.autograd.Function``).

    Subclass with static ``forward(ctx, *args)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)`` (or its alias
    ``vjp``), and call ``MyFn.apply(*args, **kwargs)``; never instantiate it.

    Class options, as PyTorch's: ``clear_saved_tensors_on_access`` (``ctx.saved_tensors`` may be
    read once, after which the node no longer keeps them), ``boxed_grads_call`` (``backward``
    gets the gradients as one list), ``generate_vmap_rule`` (no ``vmap`` in minigrad).
    """

    clear_saved_tensors_on_access = False
    boxed_grads_call = False
    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future version "
                      "of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html"
                           "#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):  # pragma: no cover - to be overridden
        """Compute the outputs from the inputs (runs without recording)."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output):
        """Fill ``ctx`` after a ``forward`` without ``ctx`` (``inputs``: its arguments, defaults
        included; ``output``: what it returned). Overriding it selects that style."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):  # pragma: no cover - to be overridden
        """Gradients w.r.t. each forward argument (None for non-tensors / not needed)."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward  # alias, as PyTorch's (override one of them, not both)

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode derivative: the tangents of the outputs from those of the inputs.

        Called by ``apply`` inside a ``forward_ad.dual_level`` when a tensor argument has a
        tangent, after ``forward`` (and ``setup_context``), with forward AD off and grad mode
        as the caller's (so a tangent computed from a primal that requires grad is itself
        differentiable). ``grad_inputs``: one per ``forward`` argument, the tangent of each
        tensor argument (zeros of its shape when it has none, or None after
        ``ctx.set_materialize_grads(False)``; None for non-tensors). Return one tangent (or
        None) per output, of the output's size; ``ctx.saved_tensors`` here are those given to
        ``ctx.save_for_forward``. PyTorch's rules on what is returned (checked in ``apply``):
        an output that is an input modified in place (``mark_dirty``) needs that input's tangent
        modified in place and returned as-is; an output that is a view of an input (or the
        input returned as-is, then seen as ``input.view_as(input)``) needs a view of that
        input's tangent; a non-differentiable output needs None.
        """
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        """The rule under ``vmap``: minigrad has no ``vmap`` (never called)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and, when needed, attach the context as the outputs' ``grad_fn``.

        Keyword arguments take the positions of ``forward``'s parameters of those names (a
        tensor among them gets an edge, ``backward`` returns a gradient for it). Outputs that
        are inputs returned as-is become views of them; inputs marked dirty keep their identity
        and get the context as their new history.

        Raises:
            TypeError: a keyword that is not a positional parameter of ``forward``, given twice,
                or leaving a gap; ``save_for_backward`` of something that is not a tensor or
                None (when recording).
            RuntimeError: (PyTorch's wording) inside a `minigrad.func` transform, a Function
                without ``setup_context``; ``mark_dirty`` / ``mark_non_differentiable`` of a
                non-tensor; a dirty input not returned, a leaf that requires grad or a view of
                one; inside a dual level, a ``jvp`` result that breaks PyTorch's rules (see
                `Function.jvp`: wrong count or size, a non-differentiable output given one, an
                in-place or view output whose tangent is not the input's modified in place or
                a view of it).
            NotImplementedError: inside a dual level, an argument has a tangent and the
                Function has no ``jvp``.
        """
        setup = cls.setup_context is not Function.setup_context
        if _transforms[0] and not setup:
            raise RuntimeError(
                "In order to use an autograd.Function with functorch transforms (vmap, grad, "
                "jvp, jacrev, ...), it must override the setup_context staticmethod. For more "
                "details, please see https://pytorch.org/docs/main/notes/extending.func.html")
        if _transforms[1] and cls.vmap is Function.vmap and not cls.generate_vmap_rule:
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it does not have vmap support. "
                "Please override and implement the vmap staticmethod or set "
                "generate_vmap_rule=True. For more details, please see "
                "https://pytorch.org/docs/main/notes/extending.func.html")
        if setup:  # (PyTorch binds the arguments to forward's signature first)
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        if kwargs:
            args = _place_keywords(cls.forward, args, kwargs, skip_ctx=not setup)
        fw = _graph.fw_on  # inside a dual level: forward runs with forward AD off, then jvp
        if fw:
            _graph.fw_on = False
            try:
                return cls._apply(args, kwargs, setup, fw=True)
            finally:
                _graph.fw_on = True
        return cls._apply(args, kwargs, setup)

    @classmethod
    def _apply(cls, args, kwargs, setup, fw=False):
        from .._tensor import Tensor

        ctx = cls._backward_cls()
        ctx._n_args = len(args)
        ctx._tensor_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx._input_shapes = {i: args[i].shape for i in ctx._tensor_slots}
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if record:  # the inputs' edges as they are before forward (which may modify them)
            ctx.next_functions = tuple(edge_of(args[i]) for i in ctx._tensor_slots)
        with grad_mode.no_grad():
            if setup:
                outputs = cls.forward(*args)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args)
        for i, t in enumerate(getattr(ctx, "dirty_tensors", None) or ()):
            if not isinstance(t, Tensor):  # (PyTorch's message stops there)
                raise RuntimeError("mark_dirty can only accept variables, but argument "
                                   f"{i} is of type {type(t).__name__}")
        for t in getattr(ctx, "non_differentiable", None) or ():
            if not isinstance(t, Tensor):
                raise RuntimeError("mark_non_differentiable only accepts variable arguments, but "
                                   f"got {type(t).__name__}")
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        dirty = getattr(ctx, "dirty_tensors", None) or ()
        if any(not any(t is o for o in outs) for t in dirty):
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
        if record and any(not any(t is a for a in args) for t in dirty):
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input "
                          "Tensors that have been mutated should be passed to ctx.mark_dirty().",
                          UserWarning, stacklevel=3)
        for t in dirty:
            t._vc.bump()  # the in-place change is counted (before saving: saved at this version)
        skip = {id(t) for t in getattr(ctx, "non_differentiable", None) or ()}
        raw = outs
        n_tensors = sum(isinstance(o, Tensor) for o in outs)
        converted = []
        for nr, o in enumerate(outs):
            if isinstance(o, Tensor):
                # every output has a slot (a non-tensor one never gets a gradient: backward
                # sees None there, see BackwardCFunction.backward)
                ctx._out_meta += ((o.shape, o._data.dtype),)
                if id(o) in skip:
                    ctx._non_diff_outputs += (nr,)
                modified_input = any(o is t for t in dirty) and any(o is a for a in args)
                differentiable = (record and id(o) not in skip and o.dtype.is_floating_point)
                o = _set_output_history(ctx, o, nr, args, dirty, len(outs), differentiable,
                                        n_tensors)
                if o._base is not None and not modified_input:
                    # every view the Function returns (of an input, or made in forward) is
                    # remembered as made by it: modifying it in place is an error (PyTorch's
                    # IN_CUSTOM_FUNCTION; MULTI_OUTPUT_NODE for one of several recorded ones)
                    o._creation_meta = ("multi_output" if n_tensors > 1 and differentiable
                                        else "custom_function")
            else:
                ctx._out_meta += (((), None),)
                ctx._non_tensor_outputs += (nr,)
            converted.append(o)
        outs = tuple(converted)
        if fw:
            _process_forward_mode(cls, ctx, args, raw, outs, dirty, skip)
        if record:
            saved = getattr(ctx, "to_save", None) or ()
            for i, t in enumerate(saved):
                if t is not None and not isinstance(t, Tensor):
                    raise TypeError("save_for_backward can only save variables, but argument "
                                    f"{i} is of type {type(t).__name__}")
            ctx._ctx_saved = [_saved_none() if t is None else
                              SavedTensor(t, ctx, any(t is o for o in outs)) for t in saved]
        else:
            ctx._ctx_saved = list(getattr(ctx, "to_save", None) or ())
        # as PyTorch, drop the ctx's own references to inputs/outputs: an output whose grad_fn
        # is ctx would otherwise form a reference cycle that keeps the graph alive
        ctx.to_save = ctx.dirty_tensors = ctx.non_differentiable = None
        ctx.saved_for_forward = None  # (kept for forward-mode AD only, which is not there)
        return outs[0] if single else outs


_JVP_NOT_INPLACE = ("An inplace custom Function is not modifying the forward mode gradients "
                    "inplace. If the forward is modifying an input inplace, then the jvp function "
                    "must modify the corresponding gradient inplace.")
_JVP_NOT_AS_IS = ("An inplace custom Function is not returning the forward mode gradients as-is. "
                  "If the forward is modifying an input inplace, then the jvp function must "
                  "modify the gradient inplace and return it as-is.")
_JVP_VIEW = "A custom Function is returning a view but the jvp is not returning a view of "


def _process_forward_mode(cls, ctx, args, raw, outs, dirty, skip) -> None:
    """Forward-mode AD through a custom Function (PyTorch's ``_process_forward_mode_AD``): if a
    tensor argument has a tangent, call ``cls.jvp`` and give each output the tangent returned
    for it, after PyTorch's checks (see `Function.jvp`). ``raw``: the outputs as ``forward``
    returned them; ``outs``: as ``apply`` returns them (an input returned as-is is a view
    there). Runs with forward AD off."""
    from .._tensor import Tensor
    from . import forward_ad as F

    grads = {i: F.fw_grad(a) for i, a in enumerate(args) if isinstance(a, Tensor)}
    if all(g is None for g in grads.values()):
        return
    versions = {i: g._version for i, g in grads.items() if g is not None}
    tangents = []
    for i, a in enumerate(args):
        if i not in grads:
            tangents.append(None)
        elif grads[i] is None and ctx._materialize and a.dtype.is_floating_point:
            from .._creation import zeros_like

            with grad_mode.no_grad():
                tangents.append(zeros_like(a))
        else:
            tangents.append(grads[i])
    ctx._in_jvp = True
    try:
        result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    if not isinstance(result, tuple):
        result = (result,)
    for i, g in enumerate(result):
        if g is not None and not isinstance(g, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(g).__name__}) for grad "
                               f"output {i}.")
    if len(result) != len(raw):  # (contrary to backward, not even extra Nones)
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(raw)} but got {len(result)})")
    roots = {}  # an input's memory root -> its position (the first one)
    for i, a in enumerate(args):
        if i in grads:
            roots.setdefault(id(a if a._base is None else a._base), i)
    for i, (r, o, g) in enumerate(zip(raw, outs, result)):
        if not isinstance(r, Tensor):
            continue  # (what jvp returns for a non-tensor output is ignored, as PyTorch)
        if id(r) in skip or not r.dtype.is_floating_point:
            if g is not None:
                raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  "
                                   "the corresponding forward output is not a differentiable "
                                   "Tensor.You should return None at that position instead.")
            k = roots.get(id(o._base)) if o._base is not None else None
            if k is not None and grads[k] is not None and o.dtype.is_floating_point:
                # a view of an input with a tangent (the input as-is too) still finds the view
                # of that tangent, as PyTorch's views read their base's
                F._keep(o, F._view_of_tangent(grads[k], args[k], o))
            continue
        if any(r is t for t in dirty):
            k = next((k for k, a in enumerate(args) if a is r), None)
            if k is None:
                raise RuntimeError("Only input Tensors should be given to ctx.mark_dirty(). If "
                                   "a Tensor is not an input, there is no need to pass it to "
                                   "mark_dirty().")
            if grads[k] is not None:  # its tangent must have been modified in place
                if g is None or g._version == versions[k]:
                    raise RuntimeError(_JVP_NOT_INPLACE)
                if g is not grads[k]:
                    raise RuntimeError(_JVP_NOT_AS_IS)
            else:
                _set_tangent(o, g, inplace=True)
            continue
        k = roots.get(id(o._base)) if o._base is not None else None
        if k is not None:  # a view of an input (or that input returned as-is)
            base_grad = grads[k]
            if base_grad is None:
                # PyTorch sets it as by an in-place op on the view and stops there: the
                # outputs after this one get no tangent
                _set_tangent(o, g, inplace=True)
                return
            if g is None:
                raise RuntimeError("cannot call get_autograd_meta() on undefined tensor")
            if g._base is None:
                raise RuntimeError("A custom Function's forward is returning a view (or an "
                                   "input as-is) but the jvp is not returning a view.")
            if base_grad._base is not None and g._base is not base_grad._base:
                raise RuntimeError(_JVP_VIEW + "the same base as the given grad input.")
            if base_grad._base is None and g._base is not base_grad:
                raise RuntimeError(_JVP_VIEW + "the given grad input.")
        _set_tangent(o, g)


class _Holder:
    """What `forward_ad.after_inplace` reads a new tangent from (an op result's place)."""

    def __init__(self, g):
        self._fw_grad = g


def _set_tangent(o, g, inplace: bool = False) -> None:
    """Give output ``o`` the tangent ``g`` with PyTorch's ``_set_fw_grad`` checks; ``inplace``:
    as an in-place op on ``o`` (a view's base gets a zero tangent first)."""
    from . import forward_ad as F

    if g is None or not g.dtype.is_floating_point:
        raise RuntimeError("Expected both tensor and its forward grad to be floating point or "
                           "complex")
    if g.shape != o.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(o.shape)} while the given forward gradient is of size "
                           f"{list(g.shape)}.")
    if inplace:
        F.after_inplace(o, _Holder(g))
        return
    if o._base is not None and o._fw_view and not _same_layout(g, o):
        # (PyTorch's internal assert: a view's tangent cannot be copied into its layout)
        raise RuntimeError("Expected the output of forward differentiable view operations to "
                           "have the tangent have the same layout as primal")
    F.set_fw_grad(o, g)


def _same_layout(a, b) -> bool:
    """Whether ``a`` and ``b`` sit alike in their memory (PyTorch's ``has_same_meta``): the same
    strides, the same offset in their base and bases of the same size."""
    from .forward_ad import _address

    def where(t):
        root = t if t._base is None else t._base
        arr, base = t._data, root._data
        offset = (_address(arr) - _address(base)) // arr.itemsize if arr.size else 0
        return tuple(s // arr.itemsize for s in arr.strides), offset, base.size

    return a.shape == b.shape and where(a) == where(b)


def _place_keywords(forward, args: tuple, kwargs: dict, skip_ctx: bool) -> tuple:
    """``args`` extended with ``kwargs`` put at the positions of ``forward``'s parameters of
    those names (after ``ctx`` when ``skip_ctx``), as PyTorch's C++ ``Function.apply``.

    Raises:
        TypeError: a name that is not such a parameter, one already given by position, or a
            position left empty before a given one (a default is not filled in).
    """
    try:
        params = list(inspect.signature(forward).parameters.values())
    except (TypeError, ValueError):  # (a builtin without a signature: no names to match)
        params = []
    names = [p.name for p in params[1 if skip_ctx else 0:]
             if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    placed = {}
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{key}'")
        pos = names.index(key)
        if pos < len(args):
            raise TypeError(f"forward() got multiple values for argument '{key}'")
        placed[pos] = value
    for pos in range(len(args), max(placed) + 1):
        if pos not in placed:
            raise TypeError(f"forward() missing required argument: '{names[pos]}' (position "
                            f"{pos})")
    return tuple(args) + tuple(placed[pos] for pos in range(len(args), max(placed) + 1))


class InplaceFunction(Function):
    """A `Function` with an ``inplace`` flag, kept by PyTorch for old code
    (``torch.autograd.function.InplaceFunction``); use `Function` instead."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


def _set_output_history(ctx, o, nr, args, dirty, n_outputs, differentiable, n_tensors=1):
    """Output ``o`` (number ``nr``) as PyTorch's ``_process_backward_mode_ad`` leaves it.

    Not differentiable (not recorded, marked non-differentiable, or not floating point): an
    input returned as-is becomes a view of itself made without grad when it does not require
    grad, a detached alias when it does; another output that requires grad is detached in
    place. Differentiable and marked dirty: its history is rewritten as by an in-place op (a
    view: ``CopySlices`` on its base, ``AsStridedBackward0`` on the view). An input returned
    as-is otherwise becomes a view of it, remembered as made by a custom Function (modifying
    it in place is then an error); other outputs get ``ctx`` as their ``grad_fn``."""
    from .._ops.inplace import AsStridedBackward0, CopySlices, check_inplace

    is_input = any(o is a for a in args)
    if not differentiable:
        if not o.requires_grad:
            if is_input and not any(o is t for t in dirty):
                with grad_mode.no_grad():
                    return o._make_view(o._data)
            return o
        if is_input:
            return o.detach()
        if o._base is None:
            o.detach_()
        return o
    if any(o is t for t in dirty):
        # (PyTorch resets the .grad of a tensor marked dirty, a retained one too, after its
        # leaf and multi-output checks: a refused leaf keeps its .grad)
        if o._base is None:
            if o._requires_grad and o._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            o._grad = None
            o._set_history(ctx, nr)  # history rewritten, as an in-place op
            return o
        if n_outputs > 1:  # (checked first, as PyTorch; non-tensor outputs count)
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by the "
                "current autograd engine. You should either make sure the input is not a view "
                "(using .clone() for example) or make your Function only return one Tensor "
                "(potentially splitting it into two Functions: one doing the inplace that "
                "returns a single Tensor and a second one that does the other operations).")
        o._grad = None
        check_inplace(o)  # a view of a leaf that requires grad, a view made in a special way
        base = o._base
        base._set_history(CopySlices(base, o, ctx))
        o._set_history(AsStridedBackward0(base, o))
        o._view_version = o._vc.value
        return o
    if is_input:
        # (a view: in-place on it is refused, see its _creation_meta set by the caller)
        o = o._make_view(o._data)
    o._requires_grad, o._grad_fn, o._output_nr = True, ctx, nr
    return o


class Error(Node):
    """Backward node that raises ``RuntimeError(msg)`` when run (PyTorch's ``DelayedError``,
    shown as ``Error``). ``name()`` is ``torch::autograd::Error``. Saves nothing."""

    _runs_unmasked = True  # (raises, or calls its fn, whatever is needed)

    def __init__(self, msg: str):
        Node.__init__(self)
        self.msg = msg

    def name(self) -> str:
        return "torch::autograd::Error"

    def backward(self, *grads):
        raise RuntimeError(self.msg)


def once_differentiable(fn):
    """Decorator for ``backward``: run it without recording, so it cannot be differentiated
    again (``torch.autograd.function.once_differentiable``).

    When grad mode is on (``create_graph``) and an incoming gradient requires grad, each output
    is an alias whose ``grad_fn`` is an ``Error`` node: a double backward through it raises
    ``RuntimeError: trying to differentiate twice a function that was marked with
    @once_differentiable``."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .._tensor import Tensor

        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled() or not any(
                isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node = Error("trying to differentiate twice a function that was marked with "
                     "@once_differentiable")
        aliases, edges = [], []
        for nr, o in enumerate(outs):
            if o is None:
                aliases.append(None)
                continue
            fake = o.detach().requires_grad_()  # a leaf, so that the node has an input edge
            edges.append(edge_of(fake))
            alias = Tensor._make(o._data)
            alias._requires_grad, alias._grad_fn, alias._output_nr = True, node, nr
            node._out_meta += ((o.shape, o._data.dtype),)
            aliases.append(alias)
        node.next_functions = tuple(edges)
        return aliases[0] if single else tuple(aliases)

    return wrapper
