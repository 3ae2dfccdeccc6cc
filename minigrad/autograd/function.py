"""Custom differentiable operations: ``Function`` with ``forward``/``backward`` and a ``ctx``.

Mirrors ``torch/autograd/function.py``. ``MyFn.apply(*args)`` runs ``MyFn.forward(ctx, *args)``
without recording, then (if grad mode is on and a tensor argument requires grad) makes ``ctx``
the ``grad_fn`` of the outputs: in PyTorch the context *is* the backward node, an instance of a
class named ``MyFnBackward``. Only tensor arguments get a slot in ``next_functions``;
``backward`` must return one value per ``forward`` argument (None for non-tensors).
"""

from __future__ import annotations

from . import grad_mode
from .graph import FREED_MSG, Node, SavedTensor, edge_of, zeros_grad


class FunctionCtx:
    """What ``forward`` and ``backward`` of a custom Function receive as ``ctx``.

    ``save_for_backward(*tensors)`` keeps tensors (version-checked on use; freed after
    backward without ``retain_graph``); ``saved_tensors`` returns them; ``needs_input_grad`` is a
    tuple of bools, one per forward argument; ``mark_non_differentiable(*outputs)`` and
    ``set_materialize_grads(bool)`` behave as in PyTorch. Any other attribute can be stored.
    """

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for ``backward``; read them back with ``saved_tensors``."""
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward`` (RuntimeError if freed or modified)."""
        if getattr(self, "_freed", False):  # checked first, even when nothing was saved
            raise RuntimeError(FREED_MSG)
        return tuple(s.unpack() if isinstance(s, SavedTensor) else s
                     for s in getattr(self, "_ctx_saved", ()))

    def mark_non_differentiable(self, *outputs) -> None:
        """Declare outputs that never require grad (``backward`` gets zeros for them)."""
        self.non_differentiable = outputs

    def mark_dirty(self, *tensors) -> None:
        """Declare inputs modified in place by ``forward``: each must be returned as an output;
        it keeps its identity, gets a version bump and the Function's node as its history."""
        self.dirty_tensors = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether undefined output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The backward node of a custom Function; subclassed per Function as ``<Name>Backward``."""

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

    def set_materialize_grads(self, value: bool) -> None:
        """Whether undefined output gradients reach ``backward`` as zeros (default) or None."""
        self._materialize = bool(value)

    def _release_variables(self) -> None:
        self._freed = True  # (PyTorch's has_freed_buffers: saved_tensors raises from now on)
        for s in getattr(self, "_ctx_saved", ()):
            if isinstance(s, SavedTensor):
                s._release()

    def backward(self, *grads):
        from .._tensor import Tensor

        name = type(self).__name__
        if self._materialize:  # (the engine passes None for outputs without a gradient)
            grads = tuple(zeros_grad(*meta) if g is None and meta[1] is not None else g
                          for g, meta in zip(grads, self._out_meta))
        if self._non_tensor_outputs:  # backward gets None for them, even with materialize
            grads = tuple(None if nr in self._non_tensor_outputs else g
                          for nr, g in enumerate(grads))
        result = self._forward_cls.backward(self, *grads)
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


class Function:
    """Base class of custom ops: subclass with static ``forward(ctx, *args)`` and
    ``backward(ctx, *grad_outputs)``, call with ``MyFn.apply(*args)`` (``torch.autograd.Function``).
    """

    _node_cls = None

    @staticmethod
    def forward(ctx, *args, **kwargs):  # pragma: no cover - to be overridden
        """Compute the outputs from the inputs (runs without recording)."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):  # pragma: no cover - to be overridden
        """Gradients w.r.t. each forward argument (None for non-tensors / not needed)."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def _backward_cls(cls):
        if cls.__dict__.get("_node_cls") is None:
            cls._node_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__doc__": f"Backward of {cls.__name__}."})
        return cls._node_cls

    @classmethod
    def apply(cls, *args):
        """Run ``forward`` and, when needed, attach the context as the outputs' ``grad_fn``.

        Outputs that are inputs returned as-is become views of them; inputs marked dirty keep
        their identity and get the context as their new history. Raises RuntimeError (PyTorch's
        wording) when a dirty input is not returned, or is a leaf that requires grad."""
        from .._tensor import Tensor

        ctx = cls._backward_cls()()
        ctx._n_args = len(args)
        ctx._tensor_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx._input_shapes = {i: args[i].shape for i in ctx._tensor_slots}
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if record:  # the inputs' edges as they are before forward (which may modify them)
            ctx.next_functions = tuple(edge_of(args[i]) for i in ctx._tensor_slots)
        with grad_mode.no_grad():
            outputs = cls.forward(ctx, *args)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        dirty = getattr(ctx, "dirty_tensors", None) or ()
        if any(not any(t is o for o in outs) for t in dirty):
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
        for t in dirty:
            t._vc.bump()  # the in-place change is counted (before saving: saved at this version)
        skip = {id(t) for t in getattr(ctx, "non_differentiable", None) or ()}
        converted = []
        for nr, o in enumerate(outs):
            if isinstance(o, Tensor):
                # every output has a slot (a non-tensor one never gets a gradient: backward
                # sees None there, see BackwardCFunction.backward)
                ctx._out_meta += ((o.shape, o._data.dtype),)
                o = _set_output_history(ctx, o, nr, args, dirty, len(outs), record and
                                        id(o) not in skip and o.dtype.is_floating_point)
            else:
                ctx._out_meta += (((), None),)
                ctx._non_tensor_outputs += (nr,)
            converted.append(o)
        outs = tuple(converted)
        if record:
            saved = getattr(ctx, "to_save", None) or ()
            ctx._ctx_saved = [SavedTensor(t, ctx, any(t is o for o in outs))
                               if isinstance(t, Tensor) else t for t in saved]
        else:
            ctx._ctx_saved = list(getattr(ctx, "to_save", None) or ())
        # as PyTorch, drop the ctx's own references to inputs/outputs: an output whose grad_fn
        # is ctx would otherwise form a reference cycle that keeps the graph alive
        ctx.to_save = ctx.dirty_tensors = ctx.non_differentiable = None
        return outs[0] if single else outs


def _set_output_history(ctx, o, nr, args, dirty, n_outputs, differentiable):
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
        o._grad = None  # PyTorch resets the .grad of a tensor marked dirty (a retained one too)
        if o._base is None:
            if o._requires_grad and o._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
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
        check_inplace(o)  # a view of a leaf that requires grad, a view made in a special way
        base = o._base
        base._set_history(CopySlices(base, o, ctx))
        o._set_history(AsStridedBackward0(base, o))
        o._view_version = o._vc.value
        return o
    if is_input:
        view = o._make_view(o._data)
        view._creation_meta = "custom_function"  # in-place on it is refused (see check_inplace)
        o = view
    o._requires_grad, o._grad_fn, o._output_nr = True, ctx, nr
    return o


class Error(Node):
    """Backward node that raises ``RuntimeError(msg)`` when run (PyTorch's ``DelayedError``,
    shown as ``Error``). ``name()`` is ``torch::autograd::Error``. Saves nothing."""

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
    import functools

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
