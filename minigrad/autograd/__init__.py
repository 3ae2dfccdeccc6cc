"""``minigrad.autograd``: ``backward``, ``grad``, nodes and grad modes.

Mirrors ``torch/autograd/__init__.py``: argument checking and seeding of the root gradients
happen here; the graph walk itself is in `minigrad.autograd.engine`.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import anomaly_mode, forward_ad, functional, graph, profiler
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import run_backward
from .profiler import _profiler_enabled  # noqa: F401  (PyTorch's private query)
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .graph import AccumulateGrad, GradientEdge, Node, RemovableHandle, SavedTensor
from .variable import Variable
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "Node",
           "AccumulateGrad", "SavedTensor", "RemovableHandle",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "graph", "gradcheck", "gradgradcheck",
           "detect_anomaly", "set_detect_anomaly", "anomaly_mode", "Variable",
           "functional", "profiler", "forward_ad"]

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)

_create_graph_warned = False


def _as_tuple(x):
    if x is None:
        return None
    from .._tensor import Tensor

    # (a GradientEdge is a tuple itself: one edge, not three values)
    return (x,) if isinstance(x, (Tensor, GradientEdge)) else tuple(x)


def _seed_grads(outputs, grad_outputs):
    """Root gradients, checked in PyTorch's order: each given gradient's type and shape (or,
    when None, ones for a one-element output that requires grad), then the number of gradients,
    then that every output requires grad. Raises TypeError / RuntimeError with its wording."""
    from .._tensor import Tensor

    given = _as_tuple(grad_outputs) or (None,) * len(outputs)
    grads = []
    for i, (out, g) in enumerate(zip(outputs, given)):
        if isinstance(out, GradientEdge):  # the shape and dtype the node's input has
            out = _EdgeOutput(out)
        if g is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._data.dtype.kind not in "fV":  # (an integer tensor with a history:
                    # see graph.inplace_int_self)
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                if profiler._active is None:
                    g = Tensor._make(np.ones(out.shape, dtype=out._data.dtype))
                else:  # a profile shows the implicit gradient as PyTorch's op for it
                    with profiler.record_function("aten::ones_like"):
                        g = Tensor._make(np.ones(out.shape, dtype=out._data.dtype))
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of minigrad.Size({list(g.shape)})"
                f" and output[{i}] has a shape of minigrad.Size({list(out.shape)}).")
        grads.append(g)
    if len(given) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(given)} gradients")
    for i, out in enumerate(outputs):
        if isinstance(out, GradientEdge):
            continue
        # the engine takes each root's gradient edge in turn: its grad_fn first (which raises
        # for a view made in inference mode whose base was modified since), then the check,
        # before it looks at the next root
        out.grad_fn  # noqa: B018
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
    return grads


class _EdgeOutput:
    """What `_seed_grads` reads of an output given as a GradientEdge: the shape and dtype of
    the gradient its node takes at that input."""

    requires_grad = True

    def __init__(self, edge):
        node, nr = edge.node, edge.output_nr
        if isinstance(node, AccumulateGrad):
            self.shape, dtype = node.variable.shape, node.variable._data.dtype
        else:
            self.shape, dtype = node._out_meta[nr]
        self._data = np.empty(0, dtype=dtype)

    def numel(self) -> int:
        return int(np.prod(self.shape))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of graph leaves
    (``torch.autograd.backward``).

    Args: ``tensors`` (Tensor or sequence), ``grad_tensors`` (matching gradients; required for
    outputs with more than one element), ``retain_graph`` (keep saved tensors; defaults to
    ``create_graph``), ``create_graph`` (record the backward pass for higher-order gradients),
    ``inputs`` (only accumulate into these: tensors, or ``GradientEdge``s, which run their node
    but accumulate nothing). Raises RuntimeError as PyTorch does.
    """
    outputs = _as_tuple(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in inputs:
            if not isinstance(t, GradientEdge) and not t.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    global _create_graph_warned
    if create_graph and not _create_graph_warned:  # PyTorch warns once per process
        _create_graph_warned = True
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    grads = _seed_grads(outputs, grad_tensors)
    run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad`` (``torch.autograd.grad``).

    Returns a tuple with one tensor (or None if unused and ``allow_unused``) per input.
    ``outputs`` and ``inputs`` may hold ``GradientEdge``s (see
    `minigrad.autograd.graph.get_gradient_edge`) in place of tensors: the gradient flowing into
    that edge.
    Raises RuntimeError for an input that does not require grad, or that was not used in the
    graph unless ``allow_unused=True`` (``materialize_grads=True`` gives zeros instead).
    """
    from .._tensor import Tensor

    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    grads = _seed_grads(outputs, grad_outputs)  # (the outputs are checked first, as PyTorch)
    for t in inputs:
        if not isinstance(t, GradientEdge) and not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                          accumulate=False)
    for i, (t, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                like = _EdgeOutput(t) if isinstance(t, GradientEdge) else t
                result[i] = Tensor._make(np.zeros(like.shape, dtype=like._data.dtype))
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
    return tuple(result)


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
