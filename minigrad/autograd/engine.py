"""The backward engine: runs the graph from the roots to the leaves.

Mirrors ``torch/csrc/autograd/engine.cpp`` (single-threaded CPU path):

1. count, for every node reachable from the roots, how many edges point at it;
2. a node is *ready* when all its producers have run (its count reaches zero);
3. among ready nodes the one created last runs first (a max-heap on the sequence number;
   ``AccumulateGrad`` has UINT64_MAX so it runs as soon as it is ready);
4. gradients arriving at the same input slot are summed in that node's input buffer.

Per node the order is: tensor hooks registered on its outputs, ``retain_grad``, node pre-hooks,
the node itself, (for ``AccumulateGrad``) post-accumulate-grad hooks, node post-hooks.
Everything is iterative, so graphs of any depth run without ``RecursionError``; backwards
nested in backwards (reentrant) move to a new thread every `MAX_REENTRANT_DEPTH` levels.

`observer` lets a tracer (`minigrad.viz_trace.trace_backward`) watch a run: when it is not None
the engine calls its ``on_*`` methods at each step (node taken from the ready queue, node run,
gradient sent along an edge, ``.grad`` written, saved tensors released). When it is None (always,
outside a trace) the engine only tests it, once per node and once per edge.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading

from .._dtype import from_numpy_dtype
from . import anomaly_mode, grad_mode, graph
from .graph import EXEC_INFO, AccumulateGrad, GradientEdge, SavedTensor, edge_of, zeros_grad

_task_ids = itertools.count()  # numbers each backward (EXEC_INFO.task_id)
_profile = None  # the recording minigrad.autograd.profiler.profile, set by it (else None)

#: None, or an object with the methods ``on_begin(roots, deps)``, ``on_node(node, heap)``,
#: ``on_run(node, grads)``, ``on_grad(node)``, ``on_release(node)``,
#: ``on_send(node, i, child, input_nr, grad, deps_left, buffer)`` and ``on_end()`` (see
#: `minigrad.viz_trace`). It must not keep references to the gradients it is shown: the engine
#: counts references to decide whether a gradient may be updated in place.
observer = None


def _edge(t):
    """``edge_of(t)``, or a GradientEdge's own ``(node, output_nr)``."""
    if type(t) is GradientEdge:
        return t[0], t[1]
    return edge_of(t)


def _reachable(roots):
    """Dependency counts (number of incoming edges) for every node reachable from ``roots``
    (the roots included: 0 unless another root leads to them), and the reachable nodes."""
    deps = dict.fromkeys(roots, 0)
    stack = list(roots)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            if child in deps:
                deps[child] += 1
            else:  # first visit
                deps[child] = 1
                stack.append(child)
    return deps, deps.keys()


def _needed(roots, targets):
    """Nodes from which some node in ``targets`` can be reached (iterative post-order)."""
    needed = set()
    done = set()
    stack = [(r, False) for r in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if node in targets or any(c in needed for c, _ in node.next_functions if c is not None):
                needed.add(node)
            done.add(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        stack.extend((c, False) for c, _ in node.next_functions if c is not None and c not in done)
    return needed


def _call_tensor_hooks(node, grads):
    """Hooks registered with ``Tensor.register_hook`` on the node's outputs (or its leaf)."""
    if isinstance(node, AccumulateGrad):
        tables = [(0, node.variable._backward_hooks)]
    else:  # one (output_nr, hooks) per hooked output tensor, in the order first hooked
        tables = list(node._tensor_pre_hooks.values())
    for nr, hooks in tables:
        for fn in list(hooks.values()):  # called even for an undefined (None) gradient
            new = fn(grads[nr])
            if new is not None:
                _check_hook_result(fn, new, grads[nr])
                grads[nr] = new
    for nr, ref in list(node._retains_grad.items()):
        t = ref()
        if t is not None and grads[nr] is not None:
            t._accumulate_retained(grads[nr])
    return grads


def _hook_name(fn) -> str:
    return getattr(fn, "__name__", repr(fn))


def _check_hook_result(fn, new, old):
    """A hook's replacement for gradient ``old`` (PyTorch's ``check_single_result``)."""
    from .._tensor import Tensor

    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.dtype != old.dtype:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the type of value (was "
                           f"{old.type()} got {new.type()})")
    if new.shape != old.shape:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the size of value")


def _check_hook_tuple(fn, new, old) -> list:
    """A node hook's replacement tuple for ``old`` (one entry per gradient; None keeps none)."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(fn)}' has returned an incorrect number of values "
                           f"(got {len(new)}, but expected {len(old)})")
    for n, o in zip(new, old):
        if n is not None:
            _check_hook_result(fn, n, o)
    return list(new)


def _check_post_accumulate_result(new, var) -> None:
    from .._tensor import Tensor

    if new is None or new is var:
        return
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _sole_owner(t, refs: int, storage: bool = True) -> bool:
    """True if nothing holds tensor ``t`` but the ``refs`` references its caller knows of
    (PyTorch: ``use_count() == 1``) and, with ``storage``, nothing else holds or views its array
    (``storage().use_count() == 1``): it may then be updated in place or taken over."""
    arr = t._data
    # getrefcount counts its own argument, and here also the parameter / the local name
    if sys.getrefcount(t) > refs + 2 or not arr.flags.writeable:
        return False
    # A view of any other memory is not owned: an ndarray base, or the DummyArray base of an
    # ``as_strided``/``broadcast_to`` view (an expanded gradient, whose cells are another
    # tensor's). Only an empty array laid out by Tensor's _empty_layout views a placeholder.
    return not storage or (sys.getrefcount(arr) <= 3 and (arr.base is None or not arr.size))


def _add_to_buffer(buf, nr, g) -> None:
    """Sum the gradients that reach one input slot (PyTorch's ``InputBuffer::accumulate``).

    With grad mode off, the gradient already there is updated in place if nothing else holds
    it (its ``_version`` goes up by one, which a fresh leaf ``.grad`` may show); otherwise (and
    under ``create_graph``) a new tensor is made."""
    old = buf[nr]
    if old is None:
        buf[nr] = g
    elif grad_mode.is_grad_enabled() or old.shape != g.shape or old.dtype != g.dtype:
        buf[nr] = old + g
    elif _sole_owner(old, 2):  # held by buf[nr] and `old`
        old._data += g._data
        old._vc.bump()
    else:
        buf[nr] = old + g


def _as_input_dtype(child, nr, g, node=None, i=0):
    """``g`` checked against the shape and dtype of the tensor it is the gradient of, as the
    receiving node recorded them (PyTorch's ``validate_outputs``): a float32 input of a float64
    op gets a float32 gradient; a shape differs only after ``.data =`` of another shape since
    the forward (see `_fit_shape`). ``node`` (None for a root) returned ``g`` as its ``i``-th
    gradient."""
    meta = child._out_meta
    if nr < len(meta):
        shape, want = meta[nr]
        if g._data.shape != shape:
            g = _fit_shape(g, shape, node, i)
    elif isinstance(child, AccumulateGrad):  # the leaf's dtype when the node was made: a
        want = child._dtype  # ``.data =`` of another dtype since then gets a new node
        if g._data.shape != child._shape:
            g = _fit_shape(g, child._shape, node, i)
    else:
        return g
    have = g._data.dtype
    if want.kind not in "fV":  # (the input of a node recorded on an integer tensor in place)
        raise RuntimeError(f"{graph.NOT_DIFFERENTIABLE_MSG}: a gradient of dtype {have} for "
                           "an integer tensor")
    # (`is`: the common, cheap case; kind "V" is bfloat16's)
    if have is want or have == want:
        return g
    return g.to(from_numpy_dtype(want))


def _fit_shape(g, shape, node, i):
    """A gradient whose shape is not the one its receiver recorded (only after ``.data =`` of
    another shape since the forward): summed down if ``shape`` broadcasts to it, else PyTorch's
    "invalid gradient" error."""
    if len(shape) <= g.ndim and all(a in (1, b) for a, b in zip(shape[::-1], g.shape[::-1])):
        from .._ops._util import sum_to  # (lazily: the ops import the autograd package)

        return sum_to(g, shape)
    who = "" if node is None else f"Function {node.name()} returned an "
    raise RuntimeError(f"{who}invalid gradient at index {i} - got "
                       f"{list(g.shape)} but expected shape compatible with {list(shape)}")


def _validate_root_grad(i, node, nr, g):
    """A root's gradient against the shape its node recorded (PyTorch's ``validate_outputs`` on
    the root edges): they differ only after ``.data =`` of another shape since the forward."""
    if g is None:
        return g
    if type(node) is AccumulateGrad:
        shape = node._shape
    elif nr < len(node._out_meta):
        shape, want = node._out_meta[nr]
        if want is not None and want.kind not in "fV":  # (see _as_input_dtype)
            raise RuntimeError(f"{graph.NOT_DIFFERENTIABLE_MSG}: a gradient of dtype "
                               f"{g._data.dtype} for an integer tensor")
    else:
        return g
    return g if g._data.shape == shape else _fit_shape(g, shape, None, i)


def _capture(caps, grads, results) -> None:
    """``autograd.grad``: keep the gradients reaching the requested inputs of one node."""
    for nr, idx in caps:
        if idx is not None:
            results[idx] = grads[nr]


def _call_node(node, grads, retain_graph):
    hooked = graph.tables_made  # (False: no node has hooks; their tables need not be read)
    if hooked and node._pre_hooks:
        for fn in list(node._pre_hooks.values()):
            new = fn(tuple(grads))
            if new is not None:
                grads = _check_hook_tuple(fn, new, grads)
        new = None  # (the hook's tuple must not keep a gradient alive: see _sole_owner)
    # what post hooks see as grad_outputs (None where nothing arrived)
    raw = tuple(grads) if hooked and node._post_hooks else None
    if _profile is not None:  # a recording profiler: the node's own event, as PyTorch's
        # (it holds the unpacking of the saved tensors too)
        _profile._begin(node.name(), sequence_nr=_profile._node_seq(node))
    custom = node._forward_cls is not None  # a custom Function's node
    is_acc = type(node) is AccumulateGrad  # (no subclasses; an isinstance that fails costs more)
    prefetched = False
    if observer is not None:
        observer.on_run(node, grads)
    if not custom:  # PyTorch's generated nodes unpack every saved variable first, so a stale,
        for v in node._saved.values():  # freed or in-place-detached one fails even when unused
            if type(v) is SavedTensor and (v._freed or v._vc.value != v._saved_version or (
                    graph.detached_in_place and v._detached())):
                if v._hooked and not v._freed:  # (hooks: version -1, always here) its unpack
                    v._prefetch()  # hook runs once now, as PyTorch's; the node reads the value
                    prefetched = True
                else:
                    v._check()  # (raises; the test inlined, as this runs for every node)
    if not custom and (grads[0] is None if len(grads) == 1 else all(g is None for g in grads)):
        # (then returns undefined gradients: such a node still runs, and its checks above too)
        outs = (None,) * len(node.next_functions)
    elif not custom and not is_acc and EXEC_INFO.needed is not None and not node._runs_unmasked \
            and not any(map(node._should_compute_output, range(len(node.next_functions)))):
        # the grad_fn of a non-leaf in backward(inputs=) whose edges lead to no input: it runs
        # (hooks, saved-tensor checks, release) but PyTorch's formula computes no gradient, so
        # none is computed here (a saved tensor since resized by .data = cannot make it fail);
        # the saved index tensors of an indexing node are unpacked all the same (freed: error)
        check = getattr(node, "_check_indices", None)
        if check is not None:
            check()
        outs = (None,) * len(node.next_functions)
    else:
        if (len(grads) > 1 or custom) and getattr(node, "materialize_grads", True):
            # multi-output nodes see zeros for outputs that got no gradient; custom Functions
            # always run (zeros, or None after ctx.set_materialize_grads(False)), as PyTorch
            grads = [g if g is not None else zeros_grad(*meta) for g, meta in
                     zip(grads, node._out_meta)]
        if is_acc:  # may .grad take this gradient over (no copy)?
            node._stealable = _sole_owner(grads[0], 1 if raw is None else 2,
                                          storage=False)  # `grads` (and `raw`)
        # (one gradient, the common case: a plain call, cheaper than unpacking a list)
        outs = node.backward(grads[0]) if len(grads) == 1 else node.backward(*grads)
        if is_acc and observer is not None:
            observer.on_grad(node)
    if _profile is not None:  # (the end of the node's own event)
        _profile._end()
    if prefetched:  # a value the node did not read must not be taken by a later read
        for v in node._saved.values():
            if type(v) is SavedTensor:
                v._prefetched = None
    if is_acc and hooked and node.variable._post_accumulate_grad_hooks:
        for fn in list(node.variable._post_accumulate_grad_hooks.values()):
            _check_post_accumulate_result(fn(node.variable), node.variable)
    if raw is not None and not custom and EXEC_INFO.needed is not None:
        # under ``inputs=`` / autograd.grad PyTorch's formulas compute only the gradients of
        # edges that lead to an input (``should_compute_output``): the post hooks see None
        # for the others (minigrad's formulas compute them all)
        outs = tuple(o if node._should_compute_output(i) else None for i, o in enumerate(outs))
    for fn in list(node._post_hooks.values()) if raw is not None else ():
        new = fn(tuple(outs), raw)
        if new is not None:
            outs = tuple(_check_hook_tuple(fn, new, tuple(outs)))
    if not retain_graph:  # after the post hooks, which may still read saved tensors (as
        node._release_variables()  # PyTorch's evaluate_function: release after call_function)
        if observer is not None:
            observer.on_release(node)
    return outs


def _evaluate(node, grads, retain_graph):
    """Run one node; in anomaly mode with its forward traceback on error and the NaN check."""
    if anomaly_mode._enabled:
        return anomaly_mode.run_node(_call_node, node, grads, retain_graph)
    return _call_node(node, grads, retain_graph)


class _Reentrancy(threading.local):
    """How many backwards are running, one inside the other, in this thread."""

    depth = 0


_reentrancy = _Reentrancy()
# A backward started from inside a node (a reentrant checkpoint, a custom Function's backward
# calling backward) nests Python frames; past this many levels in one thread the nested one
# runs in a new thread with a fresh stack, as PyTorch's engine hands deep reentrant backwards
# to a worker thread (engine.cpp, ``max_recursion_depth_``), so thousands of levels work.
MAX_REENTRANT_DEPTH = 40


def run_backward(*args, **kwargs):
    """Run backward (see `_run_backward` for the arguments), in a new thread when this thread
    is already `MAX_REENTRANT_DEPTH` backwards deep."""
    depth = _reentrancy.depth
    if depth >= MAX_REENTRANT_DEPTH:
        return _in_new_thread(_run_backward, args, kwargs)
    _reentrancy.depth = depth + 1
    try:
        return _run_backward(*args, **kwargs)
    finally:
        _reentrancy.depth = depth


def _in_new_thread(fn, args, kwargs):
    """``fn(*args, **kwargs)`` in a new thread that starts with this thread's modes (grad
    and inference mode, saved-tensor hooks: PyTorch's ThreadLocalState), waited for; its
    result is returned and its exception raised here."""
    modes = (grad_mode._tls.grad_enabled, grad_mode._tls.inference, graph.SAVED_HOOKS.stack,
             graph.SAVED_HOOKS.disabled)
    outcome = {}

    def work():
        grad_mode._set(modes[0])
        grad_mode._tls.inference = modes[1]
        graph.SAVED_HOOKS.stack, graph.SAVED_HOOKS.disabled = modes[2], modes[3]
        try:
            outcome["result"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = e
        finally:
            grad_mode._set(True)  # (keeps the count of threads with grad mode off right)

    worker = threading.Thread(target=work, name="minigrad-reentrant-backward")
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


def _run_backward(roots, grad_roots, retain_graph=False, create_graph=False, inputs=None,
                  accumulate=True):
    """Run backward from tensors ``roots`` seeded with ``grad_roots``.

    ``inputs``: tensors to restrict the run to. With ``accumulate=True`` (``backward``) their
    ``.grad`` is written (non-leaves retain it); with ``accumulate=False`` (``autograd.grad``)
    nothing is written and the gradient reaching each input is returned in order (None if none
    reached it).
    """
    from .._ops._util import quiet_fp  # (lazily: the ops import the autograd package)

    root_edges = [_edge(t) for t in roots]
    for i, (node, _) in enumerate(root_edges):
        if node is None:  # a view made under no_grad: requires grad, but has no history
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    root_nodes = list(dict.fromkeys(n for n, _ in root_edges))
    deps, _ = _reachable(root_nodes)

    captures: dict = {}  # node -> [(input_nr, result index)]
    results = None
    needed = None
    if inputs is not None:
        results = [None] * len(inputs)
        exec_targets = set()
        for i, t in enumerate(inputs):
            node, nr = _edge(t)
            if accumulate and isinstance(node, AccumulateGrad):
                exec_targets.add(node)
            elif accumulate:
                if not isinstance(t, GradientEdge):  # (an edge's node runs, nothing is kept)
                    t.retain_grad()
                captures.setdefault(node, []).append((nr, None))
            else:
                captures.setdefault(node, []).append((nr, i))
        needed = _needed(root_nodes, exec_targets | set(captures))

    buffers: dict = {}
    # the root gradients as validated (summed to a shape the root's node recorded, after
    # ``.data =``): PyTorch's engine keeps them in its ``inputs`` list (and GraphRoot) for the
    # whole pass, so AccumulateGrad never takes such a reduced one over as ``.grad``
    validated_roots = []
    for i, ((node, nr), g) in enumerate(zip(root_edges, grad_roots)):
        g = _validate_root_grad(i, node, nr, g)
        validated_roots.append(g)
        buf = buffers.setdefault(node, [None] * (len(node._out_meta) or 1))
        _add_to_buffer(buf, nr, g)

    counter = itertools.count()
    heap = [(-n._seq, next(counter), n) for n in root_nodes if deps[n] == 0]
    # a single root is where PyTorch's engine starts: it is evaluated even when inputs= prunes
    # it (its tensor hooks and retain_grad run); several roots hang under a GraphRoot node,
    # which only schedules the ones that lead to an input
    roots_pruned = set(root_nodes) if needed is not None and len(root_edges) == 1 else ()
    heapq.heapify(heap)
    obs = observer
    if obs is not None:
        obs.on_begin(root_nodes, deps)
    prof = _profile  # a recording profiler: one event per node run (see evaluate_function)
    prof_depth = prof._depth() if prof is not None else 0
    info = EXEC_INFO  # (a hook may run a nested backward: restored below)
    prev_mode, prev_info = grad_mode.is_grad_enabled(), (
        info.needed, info.reachable, info.task_id, info.accumulate)
    grad_mode._set(create_graph)
    info.needed, info.reachable, info.task_id, info.accumulate = (
        needed, deps, next(_task_ids), accumulate)
    try:
        with quiet_fp():  # inf and nan gradients come without warnings, as in PyTorch
            # ``ready``: a node that became ready while the heap was empty, so the heap would
            # give it back at once; it is kept out of it (in a chain of ops, every node is)
            ready = None
            while heap or ready is not None:
                if ready is not None:
                    node, ready = ready, None
                else:
                    node = heapq.heappop(heap)[2]
                if prof is not None:  # (PyTorch's name for the engine's step of one node)
                    prof._begin("autograd::engine::evaluate_function: " + node.name(),
                                sequence_nr=prof._node_seq(node))
                grads = buffers.pop(node, None) or [None] * (len(node._out_meta) or 1)
                if obs is not None:
                    obs.on_node(node, heap)
                is_acc = type(node) is AccumulateGrad  # (see _call_node)
                tensor_hooks = graph.tables_made and (  # (see _call_node)
                    node._tensor_pre_hooks or node._retains_grad or (
                        is_acc and node.variable._backward_hooks))  # (a leaf's hooks live on it)
                if needed is None:  # no inputs=: every reachable node runs
                    if tensor_hooks:
                        grads = _call_tensor_hooks(node, grads)
                    outs = (_call_node(node, grads, retain_graph) if not anomaly_mode._enabled
                            else _evaluate(node, grads, retain_graph))  # (one call less)
                elif node not in needed:
                    if tensor_hooks and node in roots_pruned:
                        _call_tensor_hooks(node, grads)
                    outs = (None,) * len(node.next_functions)
                else:
                    # backward(inputs=[non-leaf]) runs that tensor's grad_fn too (its hooks fire,
                    # its saved tensors are freed), as PyTorch; autograd.grad does not
                    run = is_acc and accumulate or any(
                        c in needed for c, _ in node.next_functions if c is not None) or (
                        accumulate and node in captures)
                    run = run and not (is_acc and not accumulate)
                    # autograd.grad captures an input's gradient before its tensor hooks when its
                    # node then runs, after them when it stops there (engine.cpp, evaluate_function)
                    if run and node in captures:
                        _capture(captures[node], grads, results)
                    if tensor_hooks:
                        grads = _call_tensor_hooks(node, grads)
                    if not run and node in captures:
                        _capture(captures[node], grads, results)
                    if run:
                        outs = _evaluate(node, grads, retain_graph)
                    else:
                        outs = (None,) * len(node.next_functions)
                outs = list(outs)
                for i, (child, nr) in zip(range(len(outs)), node.next_functions):
                    g, outs[i] = outs[i], None  # moved into the buffer (see _sole_owner)
                    if child is None:
                        continue
                    if g is not None:
                        meta = child._out_meta  # (the common case, inlined: as recorded)
                        if nr >= len(meta) or g._data.dtype is not meta[nr][1] or (
                                g._data.shape != meta[nr][0]):
                            g = _as_input_dtype(child, nr, g, node, i)
                        buf = buffers.get(child)
                        if buf is None:
                            buf = buffers[child] = [None] * (len(child._out_meta) or 1)
                        if buf[nr] is None:
                            buf[nr] = g
                        else:
                            _add_to_buffer(buf, nr, g)
                    left = deps[child] - 1
                    deps[child] = left
                    if obs is not None:
                        obs.on_send(node, i, child, nr, g, left, buffers.get(child))
                    if not left:
                        if not heap and ready is None:
                            ready = child
                            continue
                        if ready is not None:  # a second one: both go to the heap, in order
                            heapq.heappush(heap, (-ready._seq, next(counter), ready))
                            ready = None
                        heapq.heappush(heap, (-child._seq, next(counter), child))
                outs = g = grads = None  # the buffers now own the gradients (see _sole_owner)
                if prof is not None:
                    prof._end()
    finally:
        if obs is not None:
            obs.on_end()
        if prof is not None:  # a node that raised left its events open
            prof._unwind(prof_depth)
        grad_mode._set(prev_mode)
        info.needed, info.reachable, info.task_id, info.accumulate = prev_info
    return results
